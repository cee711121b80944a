"""Pickers of single pages that are kept in the link (so a shared link shows the same numbers),
and the links whose label carries the count they open. Here rather than in the pages, which stay
storyboards."""

from __future__ import annotations

from typing import Any

import streamlit as st

from evalcore.present import calibration as cal_show
from ui.navigation import verdicts_link
from ui.state import memo, set_url_param, state, url_choice
from ui.widgets import linked_choice, linked_flag, linked_input, linked_multi, linked_number


def calibration_pair(columns: Any, models: tuple[str, ...], top: str | None, second: str | None):
    """The Calibration page's candidate and opponent (``?candidate=``, ``?against=``), starting
    on the Overview's pair (the judge's leader against its runner-up), not slot A."""
    left, right = columns
    options = (cal_show.SLOT_A,) + tuple(models)
    start = options[options.index(top)] if top in options else options[0]
    picked = linked_choice(
        left.selectbox,
        "Candidate",
        options,
        param="candidate",
        key="cal_candidate",
        default=start,
        help=cal_show.HELP["candidate"],
    )
    cand = cal_show.candidate_of(picked)
    against = (cal_show.ALL_OPPONENTS,) + tuple(m for m in models if m != cand)
    default = second if cand == top and second in against else against[0]
    base = linked_choice(
        right.selectbox,
        "Against",
        against,
        param="against",
        key="cal_baseline",
        default=default,
        disabled=cand is None,
    )
    return cand, base


def calibration_unit() -> str:
    """The Calibration page's unit (``?unit=``)."""
    units = tuple(cal_show.UNITS)
    return linked_choice(
        st.radio, "Unit", units, param="unit", key="cal_unit", horizontal=True, help=cal_show.HELP["unit"]
    )


def disagreements_link(cal: Any, sel: Any) -> None:
    """The link from the correction to its disagreements, with their count and unit (the cases
    it opens are those units); without a candidate, the judge's per-call disagreements."""
    if cal.candidate is None:
        verdicts_link("Read the cases where the judge and the human disagree", sel.disagreements)
    else:
        verdicts_link(cal_show.disagreements_label(cal), cal_show.disagreement_filter(cal))


def rounds_and_seed(left: Any, right: Any, *, key: str = "judge", help: str | None = None) -> tuple[int, int]:
    """The bootstrap rounds and seed of the Judge and Leaderboard pages (``?rounds=``, ``?seed=``)."""
    rounds = linked_number(
        left, "Bootstrap rounds", 0, 10000, 1000, param="rounds", key=f"{key}_rounds", step=100, help=help
    )
    seed = linked_number(right, "Seed", 0, 2**31 - 1, 0, param="seed", key=f"{key}_seed")
    return int(rounds), int(seed)


def power_settings(inputs: dict, help: dict) -> dict[str, Any]:
    """The Power page's test settings in one row: level, target power, sidedness and method
    (``?alpha=``, ``?power=``, ``?two_sided=1``, ``?exact=1``)."""
    s1, s2, s3, s4 = st.columns(4)
    alpha = float(linked_input(s1.number_input, param="alpha", key="pw_alpha", **inputs["alpha"]))
    target = float(linked_input(s2.number_input, param="power", key="pw_power", **inputs["power"]))
    sided = linked_flag(s3.toggle, "Two-sided", param="two_sided", key="pw_two_sided", help=help["two_sided"])
    exact = linked_flag(s4.toggle, "Exact binomial", param="exact", key="pw_exact", help=help["exact"])
    return {"alpha": alpha, "power": target, "two_sided": sided, "method": "exact" if exact else "normal"}


def power_compare(label: str, modes: Any, first: int, help: str) -> str:
    """The Power page's "what this dataset can detect" comparison (``?compare=``)."""
    radio = {"key": "pw_compare", "default": modes[first], "horizontal": True, "help": help}
    return linked_choice(st.radio, label, modes, param="compare", **radio)


def power_anchor(ranked: list[str], default: str, help: str) -> str:
    """The Power page's anchor (``?anchor=``; one the table does not have is named in a warning)."""
    return linked_choice(
        st.selectbox, "Anchor", ranked, param="anchor", key="pw_anchor", default=default, help=help
    )


def recommended_anchor(
    counts: Any, judge: str, category: str | None, ranked: list[str], fixed: str | None
) -> str:
    """The anchor the Power page starts on: the table's own anchor (an anchor-only table), else
    the most informative one, the anchor the Overview recommends (the same sweep, shared through
    the memo key the Overview and Anchors pages use), so the page's first answer is the
    Overview's number; the middle-ranked model where no anchor can be assessed."""
    from evalcore.anchors import anchor_sweep
    from evalcore.findings.analyses import ranking_key

    if fixed in ranked:
        return str(fixed)
    human = state().get("human_ranking")
    key = ("anchor_sweep", judge, category, False, "b", ranking_key(human))
    try:
        best = memo(key, lambda: anchor_sweep(counts, human_ranking=human)).recommended
    except ValueError:  # the design has no anchor to assess (one battle per prompt)
        best = None
    return best if best in ranked else ranked[len(ranked) // 2]


def power_edges(choices: Any, label: Any) -> list:
    """The Power page's edges to detect (``?edges=0.05,0.1``; ``none`` for none)."""
    pick = {"key": "pw_edges", "default": [0.05, 0.10], "encode": lambda e: f"{e:g}", "format_func": label}
    return linked_multi(st.multiselect, "Edges to detect", choices, param="edges", **pick)


def power_simulation(pv: Any, dists: Any, ranked: list[str], anchor: str) -> dict[str, Any]:
    """The Power page's simulation settings, each in the link: the window's start or the pair
    (``?window=``, ``?pool=``, ``?model_a=``, ``?model_b=``), the largest N (``?largest=``), the
    seed (``?sim_seed=``) and the simulations per N (``?simulations=``). Returns the chosen
    distributions with their nominal edge and label, and the settings."""
    window = (
        linked_choice(
            st.radio, "Distributions", pv.WILCOXON_MODES, param="mode", key="pw_mode", horizontal=True
        )
        == pv.WILCOXON_MODES[0]
    )
    g1, g2, g3, g4 = st.columns(4)
    pool = None
    if window:
        low = linked_input(g1.number_input, param="window", key="pw_window", **pv.INPUTS["window"])
        pool = linked_choice(
            g2.selectbox, "Anchors", [pv.ALL_ANCHORS, *ranked], param="pool", key="pw_pool_anchor"
        )
        chosen, nominal, label = pv.edge_window(dists, low, None if pool == pv.ALL_ANCHORS else pool)
    else:
        others = [m for m in ranked if m != anchor]
        model_a = linked_choice(g1.selectbox, "Model A", others, param="model_a", key="pw_model_a")
        rest = [m for m in others if m != model_a]
        model_b = linked_choice(g2.selectbox, "Model B", rest, param="model_b", key="pw_model_b")
        chosen, nominal, label = pv.one_pair(dists, model_a, model_b, anchor)
    max_n = int(linked_input(g3.number_input, param="largest", key="pw_max_n", **pv.INPUTS["largest"]))
    seed = int(
        linked_input(
            g4.number_input, param="sim_seed", key="pw_seed", max_value=2**31 - 1, **pv.INPUTS["seed"]
        )
    )
    asked = url_choice("simulations", pv.SIMULATION_CHOICES, 2000)
    sims = int(st.select_slider("Simulations per N", pv.SIMULATION_CHOICES, value=asked, key="pw_sims"))
    set_url_param("simulations", None if sims == 2000 else sims)
    return {"window": window, "chosen": chosen, "nominal": nominal, "label": label, "pool": pool,
            "max_n": max_n, "seed": seed, "sims": sims}  # fmt: skip
