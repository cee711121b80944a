"""The shared "Prices" input (sidebar) and the cost a size shows beside it: every page that prints
a size to collect (instructions, judge calls, human labels) reads it in money when prices are
given. Both prices are kept in the link (``price_call``, ``price_label``; empty = no cost shown)."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from evalcore.power.budget import SizeUnit, cost_text
from ui.state import set_url_param, url_number, url_param

_SEEN = "_vl_prices"  # the last prices typed, so another page opened from the sidebar keeps them


@dataclass(frozen=True)
class PriceInput:
    """The prices typed (None: not given)."""

    per_call: float | None = None
    per_label: float | None = None

    def cost(self, size: float, *, unit: SizeUnit = "instructions", per_instruction: int = 1) -> str:
        """The size in judge calls and money ("935 instructions ≈ 17,765 judge calls ≈ 177.65"),
        the money left out when its price is not given; "" when neither price is given."""
        return cost_text(
            size, unit=unit, per_instruction=per_instruction, per_call=self.per_call, per_label=self.per_label
        )


def _price(where, label: str, param: str) -> float | None:
    remembered = st.session_state.setdefault(_SEEN, {})
    given = url_param(param) is not None
    asked = url_number(param, 0.0, low=0.0, high=1e9) if given else remembered.get(param)
    value = where.number_input(
        label,
        min_value=0.0,
        max_value=1e9,
        value=asked,
        format="%.4f",
        key=f"prices_{param}",
        placeholder="none",
    )
    remembered[param] = value
    set_url_param(param, None if value is None else f"{value:g}")
    return value


def prices_input() -> PriceInput:
    """The sidebar's "Prices" box: a price per judge call and per human label, both optional."""
    box = st.sidebar.expander("Prices", expanded=True)
    box.caption("Give a price to read every size to collect in money (any currency).")
    return PriceInput(
        per_call=_price(box, "Price per judge call", "price_call"),
        per_label=_price(box, "Price per human label", "price_label"),
    )
