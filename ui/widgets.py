"""Widgets the pages share: pickers, widgets kept in the link, progress, metric tiles, charts,
tables and CSV downloads; and the sidebar's "Prices" input with the cost a size shows beside it:
every page that prints a size to collect (instructions, judge calls, human labels) reads it in
money when prices are given. Both prices are kept in the link (``price_call``, ``price_label``;
empty = no cost shown)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial, wraps
from typing import TYPE_CHECKING, Any, Callable

import pandas as pd
import streamlit as st

from evalcore.present.display import shorten_cells
from evalcore.store.store import VerdictStore
from ui.messages import escape_markdown, info, md, metric, show_error, warning
from ui.readable import count_columns, metric_tile
from ui.state import (
    default_choice,
    default_judge,
    known_params,
    memo,
    set_url_param,
    state,
    url_choice,
    url_list,
    url_number,
    url_param,
)
from ui.status import inside_section

if TYPE_CHECKING:
    from evalcore.power.budget import SizeUnit

ALL_CATEGORIES = "All categories"


def _shared_picker(
    name: str, options: Any, *, key: str, default: Any, instead: str, draw: bool = True, **kwargs: Any
) -> Any:
    """The judge or category selectbox every page shares: it starts on the choice made on another
    page or named by the link (``vl_<name>``; one this dataset lacks is named in a warning) and
    is kept in the link (``?<name>=``). Not ``draw``n (None) when there is nothing to choose."""
    current = st.session_state.get(f"vl_{name}")
    if current is not None and current not in options:
        warning(
            f"The {name} {current} (named by the link or the previous dataset) is not in this "
            f"dataset; showing {instead} instead."
        )
        st.session_state[f"vl_{name}"] = current = None
    if not draw:
        set_url_param(name, None)
        return None
    start = options.index(current if current in options else default)
    value = st.selectbox(name.capitalize(), options, index=start, key=f"{key}_select", **kwargs)
    value = None if value == ALL_CATEGORIES else value
    st.session_state[f"vl_{name}"] = value
    set_url_param(name, value)
    return value


def judge_picker(store: VerdictStore, *, key: str = "judge") -> str:
    """A judge selector shared by the pages (remembers the choice across pages); its help says
    the default in words (the same rule as the commands and the report)."""
    first = default_judge(store)
    why = "Every analysis is per judge: judges differ in bias and scale. Pages start on "
    why += escape_markdown(default_choice(store).reason)
    return _shared_picker("judge", list(store.judges()), key=key, default=first, instead=first, help=why)


def category_picker(store: VerdictStore, *, key: str = "category") -> str | None:
    """A category selector shared by the pages (remembers the choice across pages)."""
    options = [ALL_CATEGORIES, *store.categories()]
    some = len(options) > 1
    return _shared_picker(
        "category", options, key=key, default=ALL_CATEGORIES, instead="all categories", draw=some
    )


def selection(store: VerdictStore, *, key: str, columns: Any = None) -> tuple[str, str | None]:
    """The judge and category pickers side by side (widget keys ``<key>_judge`` and
    ``<key>_category``), in ``columns`` if given, else in two new columns."""
    left, right = columns if columns is not None else st.columns(2)
    with left:
        judge = judge_picker(store, key=f"{key}_judge")
    with right:
        category = category_picker(store, key=f"{key}_category")
    return judge, category


@contextmanager
def progress_bar(text: str) -> Iterator[Callable[[float, str], None]]:
    """A progress bar for one long computation: yields the ``progress(fraction, text)`` callback
    evalcore's long functions take, and removes the bar when the block ends (also on an error)."""
    bar = st.progress(0.0, text=text)

    def progress(fraction: float, message: str) -> None:
        bar.progress(min(1.0, max(0.0, float(fraction))), text=md(message))

    try:
        yield progress
    finally:
        bar.empty()


def open_tabs(labels: list[str], *, key: str, params: dict[int, tuple[str, ...]] | None = None):
    """Tabs of which only the open one is drawn: the tab containers and, for each, whether to draw
    it. A hidden tab's charts and tables still cost the browser their drawing (a second of its
    CPU for the Anchors page's four hidden charts on a first visit, and again on every change);
    so opening a tab reruns the page (``on_change="rerun"``) and draws that tab only.

    The open tab is kept in the link (``?tab=``, absent for the first tab), so a copied link opens
    on the tab it was copied from. ``params``: the link parameters each tab's widgets read (by tab
    index). A link without ``tab`` that sets one of them opens on that tab (the first such), so it
    shows the numbers it carries; the others are taken as known while their tab is hidden, so the
    link is not said to have an unknown setting (the setting applies when the tab is opened)."""
    params = params or {}
    linked = [i for i, names in sorted(params.items()) if any(n in st.query_params for n in names)]
    asked = url_choice("tab", labels, labels[linked[0]] if linked else labels[0])
    if key not in st.session_state:  # the link opens a tab once; then the visitor's clicks do
        # (not st.tabs' ``default``: a default that changed with the link would make a new widget)
        st.session_state[key] = asked
    tabs = st.tabs(labels, key=key, on_change="rerun")
    shown = [tab.open is not False for tab in tabs]  # None (no state kept): every tab drawn
    if not all(shown):  # the state is kept: exactly one tab is open
        opened = labels[shown.index(True)]
        set_url_param("tab", None if opened == labels[0] else opened)
    for index, names in params.items():
        if not shown[index]:
            known_params(*names)
    return tabs, shown


def demo_banner() -> None:
    """Say that the data are simulated when a demo is loaded."""
    s = state()
    if s.get("demo"):
        st.caption(
            f":material/science: {s['demo']} — **simulated data**: the models and judges are made up "
            "by Verdict Lab's simulator, not real systems."
        )


def safe_csv(frame: pd.DataFrame) -> bytes:
    """CSV for download, with CSV injection neutralised (a cell starting with =, +, -, @ gets a leading apostrophe)."""

    def defuse(value):
        if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
            return "'" + value
        return value

    out = frame.copy()
    out.columns = [defuse(c) for c in out.columns]  # model names can be headers (matrices)
    for i in range(out.shape[1]):
        col = out.iloc[:, i]
        if (
            col.dtype == object
            or pd.api.types.is_string_dtype(col.dtype)
            or isinstance(col.dtype, pd.CategoricalDtype)
        ):
            out.isetitem(i, col.astype(object).map(defuse))
    return out.to_csv(index=False).encode("utf-8")


def tiles(rows: Any, *, empty: str = "", escape: bool = True) -> None:
    """A row of metric tiles from evalcore's ``Metric`` objects or ``(label, value, help)``
    tuples. ``escape=False`` only for values evalcore wrote as numbers (escaping would turn
    "0.340" into "0\\.340" in the element's text); anything that may hold a name is escaped."""
    rows = [(r.label, r.value, r.note) if hasattr(r, "label") else tuple(r) for r in rows]
    if not rows and empty:
        st.info(empty)
    for column, (label, value, why) in zip(st.columns(max(len(rows), 1)), rows, strict=False):
        if escape:
            metric(column, label, value, help=why)
        else:
            metric_tile(column, label, value, help=why or None)


def number_tiles(rows: Any, *, empty: str = "") -> None:
    """:func:`tiles` of numbers evalcore wrote (not escaped; see there)."""
    tiles(rows, empty=empty, escape=False)


def chart(
    figure: Any, where: Any = None, data: Any = None, name: str = "", *, key: str | None = None
) -> None:
    """A Plotly figure at full width (in ``where`` if given), with its data as a CSV if named."""
    from evalcore.plots.common import CONFIG

    with where or st.container():
        st.plotly_chart(figure, config=CONFIG, key=key, width="stretch")
        if name:
            download_csv(data, name)


def table(
    frame: pd.DataFrame, data: pd.DataFrame | None = None, name: str = "", key: str | None = None
) -> None:
    """A table at full width, and the numbers behind it (``data``, else the table) as a CSV.
    Whole-number columns (counts) get a thousands separator: 114,000, not 114000. A long text
    cell (a name) is cut for the eye (:func:`evalcore.present.display.shorten_cells`); the CSV is whole."""
    st.dataframe(shorten_cells(frame), hide_index=True, width="stretch", column_config=count_columns(frame))
    if name:
        download_csv(frame if data is None else data, name, key=key)


#: From this many rows a CSV download is written when it is clicked, not with the page: 1.8
#: million per-instruction rows took seconds of every visit for a file few people download.
DEFERRED_CSV_ROWS = 50_000


def download_csv(
    frame: pd.DataFrame, name: str, *, label: str = "Download CSV", key: str | None = None
) -> None:
    """A CSV download button of ``frame`` (written on the click from :data:`DEFERRED_CSV_ROWS` rows)."""
    st.download_button(
        label,
        data=partial(safe_csv, frame) if len(frame) >= DEFERRED_CSV_ROWS else safe_csv(frame),
        file_name=name,
        mime="text/csv",
        key=key or f"dl_{name}",
        on_click="ignore",
    )


def orders_picker(*, key: str = "orders") -> bool:
    """Offer the both-orders verdict (the verdict both orders agree on, else a tie); kept in the
    link as ``orders=both``, so a shared link shows the same numbers."""
    asked = url_choice("orders", (False, True), False, encode=lambda on: "both" if on else "single")
    why = (
        "Combine the two orders of each pair into the verdict both orders agree on, else a tie (Zheng "
        "et al., 2023, “Judging LLM-as-a-judge”). Needs pairs judged in both orders; pairs judged in "
        "one order only are left out while it is on."
    )
    on = st.toggle("Both-orders verdicts", value=asked, key=f"{key}_toggle", help=why)
    set_url_param("orders", "both" if on else None)
    return on


def linked_flag(
    widget: Callable[..., Any], label: str, *, param: str, key: str, default: bool = False, **options: Any
) -> bool:
    """A switch (``st.toggle`` or ``st.checkbox``, or a column's) kept in the link (``param=1`` or
    ``0`` when it differs from ``default``), so a shared link shows the same numbers."""
    asked = url_choice(param, (False, True), default, encode=lambda on: "1" if on else "0")
    on = widget(label, value=asked, key=key, **options)
    set_url_param(param, None if on == default else ("1" if on else "0"))
    return bool(on)


def linked_choice(
    widget: Callable[..., Any],
    label: str,
    options: Any,
    *,
    param: str,
    key: str,
    default: Any = None,
    encode: Callable[[Any], str] = str,
    renamed: Mapping[str, str] | None = None,
    **kwargs: Any,
) -> Any:
    """``widget`` (``st.selectbox`` or ``st.radio``, or a column's) over ``options``, started on
    the link's ``param`` (a value it does not offer is named in a warning; a former name in
    ``renamed`` is read as the value's name now, and the link rewritten) and kept in the link
    when it differs from ``default`` (the first option when None)."""
    options = list(options)
    default = options[0] if default is None or default not in options else default
    asked = url_choice(param, options, default, encode=encode, renamed=renamed)
    value = widget(label, options, index=options.index(asked), key=key, **kwargs)
    set_url_param(param, None if value == default else encode(value))
    return value


def memo_or_info(key: tuple, compute: Any, *, errors: Any = ValueError, words: str = "{}") -> Any:
    """:func:`ui.state.memo`, or None with the reason shown as a note (``words`` with the reason in
    its braces) when the design cannot give the result (the library says why in one of ``errors``,
    a ValueError unless said)."""
    try:
        return memo(key, compute)
    except errors as exc:
        info(words.format(exc))
        return None


def linked_input(widget: Callable[..., Any], *, param: str, key: str, **inputs: Any) -> Any:
    """A number input or slider (``widget``, with ``inputs`` as its keyword arguments: label,
    min_value, max_value, value, step, format, help) started on the link's ``param`` (a value
    that is not a number in range, or not whole for a whole ``value``, is named in a warning)
    and kept in the link when it differs from ``value``, so a copied link shows the same numbers."""
    default = inputs.pop("value")
    asked = url_number(param, default, low=inputs.get("min_value"), high=inputs.get("max_value"))
    value = widget(value=type(default)(asked), key=key, **inputs)
    set_url_param(
        param, None if value == default else (int(value) if isinstance(default, int) else f"{value:g}")
    )
    return value


def linked_number(
    where: Any, label: str, low: Any, high: Any, value: Any, param: str, key: str, **inputs: Any
) -> Any:
    """``where``'s number input from ``low`` to ``high``, started on ``value`` and kept in the link
    as ``param`` (:func:`linked_input`)."""
    inputs.update(label=label, min_value=low, max_value=high, value=value)
    return linked_input(where.number_input, param=param, key=key, **inputs)


def linked_multi(
    widget: Callable[..., Any],
    label: str,
    options: Any,
    *,
    param: str,
    key: str,
    default: list,
    encode: Callable[[Any], str] = str,
    **kwargs: Any,
) -> list:
    """A multiselect started on the link's comma-separated ``param`` (values it does not offer
    are named in a warning) and kept in the link when it differs from ``default``; an empty
    choice is ``param=none``."""
    options = list(options)
    raw = url_param(param)
    asked = [] if raw == "none" else (url_list(param, options, encode=encode) or default) if raw else default
    value = widget(label, options, default=asked, key=key, **kwargs)
    text = ",".join(encode(v) for v in value) or "none"
    set_url_param(param, None if list(value) == list(default) else text)
    return list(value)


def linked_text(
    widget: Callable[..., Any], label: str, *, param: str, key: str, default: str, **kwargs: Any
) -> str:
    """A text input started on the link's ``param`` and kept in the link when it differs from
    ``default`` (the page checks the text itself, as it does a typed one)."""
    value = widget(label, value=url_param(param, default), key=key, **kwargs)
    set_url_param(param, None if value == default else value)
    return str(value)


def rounds_and_seed(left: Any, right: Any, *, key: str = "judge", help: str | None = None) -> tuple[int, int]:
    """The bootstrap rounds and seed of the Judge and Leaderboard pages (``?rounds=``, ``?seed=``)."""
    rounds = linked_number(
        left, "Bootstrap rounds", 0, 10000, 1000, param="rounds", key=f"{key}_rounds", step=100, help=help
    )
    seed = linked_number(right, "Seed", 0, 2**31 - 1, 0, param="seed", key=f"{key}_seed")
    return int(rounds), int(seed)


_SEEN = "_vl_prices"  # the last prices typed, so another page opened from the sidebar keeps them


@dataclass(frozen=True)
class PriceInput:
    """The prices typed (None: not given)."""

    per_call: float | None = None
    per_label: float | None = None

    def cost(self, size: float, *, unit: SizeUnit = "instructions", per_instruction: int = 1) -> str:
        """The size in judge calls and money ("935 instructions, that is 17,765 judge calls, costing 177.65"),
        the money left out when its price is not given; "" when neither price is given."""
        # imported here: the power package loads SciPy's statistics, which no page's first
        # draw needs before a price is typed
        from evalcore.power.budget import cost_text

        return cost_text(
            size, unit=unit, per_instruction=per_instruction, per_call=self.per_call, per_label=self.per_label
        )


def _price(where, label: str, param: str) -> float | None:
    remembered = st.session_state.setdefault(_SEEN, {})
    given = url_param(param) is not None
    asked = url_number(param, 0.0, low=0.0, high=1e9) if given else remembered.get(param)
    bounds = {"min_value": 0.0, "max_value": 1e9, "format": "%.4f", "placeholder": "none"}
    value = where.number_input(label, value=asked, key=f"prices_{param}", **bounds)
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


def section(draw: Callable[..., None]) -> Callable[..., None]:
    """A part of a page that its own widgets redraw alone (Streamlit's fragment): a change of one
    of them reruns ``draw`` only, so the page's other sections are neither computed, sent nor
    drawn again (on the Tie structure page, the pointwise section's three charts and tables at
    each change of judge). An error in it is shown in words, as the page's wrapper shows one."""

    @wraps(draw)
    def guarded(*args: Any, **kwargs: Any) -> None:
        try:
            with inside_section():  # its status in a spinner of its own (see inside_section)
                draw(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - a section's rerun is outside the page's wrapper
            show_error(exc)

    return st.fragment(guarded)
