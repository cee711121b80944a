"""The Power page's settings, each kept in the link (the test, the anchor it starts on, the
edges, the simulation), and its result sections, each one call from the page: the sample-size
plan, the simulated power curve, the dataset's detectable edges and "Stop judging now" (the
anytime-valid confidence sequence over the verdicts judged so far, :mod:`evalcore.power.monitor`).
The page picks the settings and computes; these draw one result each (words and tables from
:mod:`evalcore.present.power`)."""

from __future__ import annotations

from functools import partial
from typing import Any

import streamlit as st

import ui as _ui
from evalcore.errors import EvalcoreError
from evalcore.plots import power as figures
from evalcore.plots.monitor import monitor_figure
from evalcore.power.budget import Prices, calls_per_instruction
from evalcore.power.monitor import monitor_leader, monitor_pair
from evalcore.present import monitor as mv
from evalcore.present import power as pv
from ui.state import set_url_param, url_choice
from ui.widgets import linked_choice, linked_input


def plan(
    result, *, anchor: str | None, informativeness: float, n_models: int, prices: _ui.PriceInput
) -> None:
    """The answer to "how many instructions": sentence, its cost at the prices given, table,
    caption, notes and the figure."""
    per_instruction = calls_per_instruction(n_models, design="anchor")
    money = Prices(prices.per_call, prices.per_label or 0.0) if prices.per_call is not None else None
    if answer := pv.answer_sentence(result, anchor):
        st.success(answer)
        if prices.per_call is not None or prices.per_label is not None:
            st.info(pv.plan_calls_sentence(result, n_models, prices=money))
    view = pv.sample_size_table(result, per_instruction=per_instruction, prices=money)
    _ui.table(view, result.table, "sign_test_sample_sizes.csv", "dl_pw_plan")
    st.caption(pv.sample_size_caption(result))
    _ui.caption(*result.notes)
    if len(result.table) > 1:
        _ui.chart(
            figures.sample_size_figure(result.table, informativeness=informativeness), key="pw_plan_fig"
        )


def curve(result, *, largest: int, label: str, chosen, anchor: str) -> None:
    """The simulated power curve and the difference distributions it was drawn from."""
    _ui.tiles(pv.curve_metrics(result, largest))
    _ui.chart(figures.power_curve_figure(result), key="pw_curve_fig")
    _ui.caption(pv.curve_caption(result, label))
    _ui.download_csv(result.frame, "power_curve.csv", key="dl_pw_curve")
    title = pv.difference_title(chosen, anchor)
    _ui.chart(figures.difference_figure(chosen, title=title), key="pw_diff_fig")
    with st.expander("The distributions used"):
        name = "difference_distributions.csv"
        _ui.table(pv.distributions_table(chosen), chosen.table, name, "dl_pw_dists")
        st.caption(pv.DISTRIBUTIONS_NOTE)


def detection(result, judge: str) -> None:
    """What this dataset can detect: tiles, the top pair in words, notes, figure, table, caption."""
    _ui.tiles(pv.detectable_metrics(result))
    if (top := pv.top_pair_sentence(result)) is not None:
        (st.success if top[0] == "success" else st.warning)(_ui.md(top[1]))
    _ui.info(*result.notes)
    if result.n_pairs:
        _ui.chart(figures.detectable_edges_figure(result), key="pw_detect_fig")
        _ui.table(pv.detectable_table(result), result.table, f"detectable_edges_{judge}.csv", "dl_pw_detect")
    st.caption(pv.detectable_caption(result))


def monitor_section(store, judge: str | None, category: str | None, ranked: list[str], alpha: float) -> None:
    """Pick two models (or the leader), show whether judging could stop, and the curve."""
    st.header("4 · Stop judging now: is the answer already safe?")
    with st.expander("How the stopping rule works (confidence sequence)"):
        st.markdown(mv.INTRO)
    mode = st.radio("Question", mv.MODES, horizontal=True, key="pw_monitor_mode")
    options = {"judge": judge, "category": category, "alpha": alpha}
    if mode == mv.MODES[0]:
        c1, c2 = st.columns(2)
        a = c1.selectbox("First model", ranked, index=0, key="pw_monitor_a")
        rest = [m for m in ranked if m != a]
        b = c2.selectbox("Second model", rest, index=0, key="pw_monitor_b")
        key: tuple = ("pw_monitor", judge, category, a, b, alpha)
        compute = partial(monitor_pair, store, model_a=a, model_b=b, **options)
    else:
        key = ("pw_monitor_leader", judge, category, alpha)
        compute = partial(monitor_leader, store, **options)
    result = _ui.memo_or_info(key, compute, errors=EvalcoreError)
    if result is None:
        return
    (st.success if result.decided else st.warning)(_ui.md(result.sentence()))
    _ui.tiles(mv.tiles(result))
    _ui.chart(monitor_figure(result), key="pw_monitor_fig")
    _ui.caption(mv.caption(result))
    _ui.caption(*result.notes)
    _ui.download_csv(result.curve, "confidence_sequence.csv", key="dl_pw_monitor")


def power_simulation(pv: Any, dists: Any, ranked: list[str], anchor: str) -> dict[str, Any]:
    """The Power page's simulation settings, each in the link: the window's start or the pair
    (``?window=``, ``?pool=``, ``?model_a=``, ``?model_b=``), the largest N (``?largest=``), the
    seed (``?sim_seed=``) and the simulations per N (``?simulations=``). Returns the chosen
    distributions with their nominal edge and label, and the settings."""
    radio = {"param": "mode", "key": "pw_mode", "horizontal": True}
    window = linked_choice(st.radio, "Distributions", pv.WILCOXON_MODES, **radio) == pv.WILCOXON_MODES[0]
    g1, g2, g3, g4 = st.columns(4)
    pool = None
    if window:
        low = linked_input(g1.number_input, param="window", key="pw_window", **pv.INPUTS["window"])
        pick = {"param": "pool", "key": "pw_pool_anchor"}
        pool = linked_choice(g2.selectbox, "Anchors", [pv.ALL_ANCHORS, *ranked], **pick)
        chosen, nominal, label = pv.edge_window(dists, low, None if pool == pv.ALL_ANCHORS else pool)
    else:
        others = [m for m in ranked if m != anchor]
        model_a = linked_choice(g1.selectbox, "Model A", others, param="model_a", key="pw_model_a")
        rest = [m for m in others if m != model_a]
        model_b = linked_choice(g2.selectbox, "Model B", rest, param="model_b", key="pw_model_b")
        chosen, nominal, label = pv.one_pair(dists, model_a, model_b, anchor)
    max_n = int(linked_input(g3.number_input, param="largest", key="pw_max_n", **pv.INPUTS["largest"]))
    seed_input = {"param": "sim_seed", "key": "pw_seed", "max_value": 2**31 - 1, **pv.INPUTS["seed"]}
    seed = int(linked_input(g4.number_input, **seed_input))
    asked = url_choice("simulations", pv.SIMULATION_CHOICES, 2000)
    sims = int(
        st.select_slider("Simulations per sample size", pv.SIMULATION_CHOICES, value=asked, key="pw_sims")
    )
    set_url_param("simulations", None if sims == 2000 else sims)
    return {"window": window, "chosen": chosen, "nominal": nominal, "label": label, "pool": pool,
            "max_n": max_n, "seed": seed, "sims": sims}  # fmt: skip
