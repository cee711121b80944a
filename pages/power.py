"""Power: how many samples separate two models, and what the loaded data can separate
(Don-Yehiya et al. 2026). Every sentence, number, display table and setting's label comes from
evalcore.present.power; one evalcore call per section."""

from __future__ import annotations

from functools import partial

import streamlit as st

import ui as _ui
from evalcore import anchors as an
from evalcore import power as pw
from evalcore.findings import ranking_key
from evalcore.present import power as pv
from evalcore.ranking import leaderboard
from ui import power_view as view

with _ui.page("Power"):
    st.title("Power")
    st.caption(pv.INTRO)
    store = _ui.require_data()
    _ui.demo_banner()
    judge, category = _ui.selection(store, key="pw")
    prices = _ui.prices_input()
    counts = _ui.counts(store, judge, category)
    if counts.n_models < 2:
        _ui.stop_with(pv.TOO_FEW_MODELS)
    summary = _ui.memo(("summary",), store.summary)  # the Data page's and the findings' key
    _ui.forget_on_new_data("pw_anchor", "pw_compare", "pw_model_a", "pw_model_b", "pw_pool_anchor")
    board = _ui.memo(
        ("pw_board", judge, category), lambda: leaderboard(counts, rounds=0, interval="bootstrap")
    )
    ranked, human = list(board.table["model"]), _ui.state().get("human_ranking")
    # the anchor the Overview recommends (its sweep, shared through the Overview's memo key)
    key = ("anchor_sweep", judge, category, False, "b", ranking_key(human))
    sweep = partial(_ui.memo, key, lambda: an.anchor_sweep(counts, human_ranking=human))
    default_anchor = an.starting_anchor(ranked, fixed=summary.anchor, sweep=sweep)

    st.subheader("Test settings")
    s1, s2, s3, s4 = st.columns(4)
    alpha = float(_ui.linked_input(s1.number_input, param="alpha", key="pw_alpha", **pv.INPUTS["alpha"]))
    target = float(_ui.linked_input(s2.number_input, param="power", key="pw_power", **pv.INPUTS["power"]))
    flag = {"param": "two_sided", "key": "pw_two_sided", "help": pv.HELP["two_sided"]}
    two_sided = _ui.linked_flag(s3.toggle, "Two-sided", **flag)
    exact = _ui.linked_flag(s4.toggle, "Exact binomial", param="exact", key="pw_exact", help=pv.HELP["exact"])
    method = "exact" if exact else "normal"
    test = {"alpha": alpha, "power": target, "two_sided": two_sided, "method": method}
    why = "The model every other model is compared against."
    pick = {"param": "anchor", "key": "pw_anchor", "default": default_anchor, "help": why}
    anchor = _ui.linked_choice(st.selectbox, "Anchor", ranked, **pick)

    # -- 1. the sign test ------------------------------------------------------------------------
    st.header("1 · How many instructions: the answer")
    with st.expander("How the answer is computed (sign test)"):
        st.markdown(pv.SIGN_TEST_INTRO)
    edge = {"param": "edges", "key": "pw_edges", "encode": lambda e: f"{e:g}", "format_func": pv.edge_label}
    edges = _ui.linked_multi(st.multiselect, "Edges to detect", pv.EDGE_CHOICES, default=[0.05, 0.10], **edge)
    radio = {"param": "informativeness", "key": "pw_info_source", "horizontal": True}
    source = _ui.linked_choice(st.radio, "Informativeness source", pv.INFO_SOURCES, **radio)
    if source == pv.INFO_SOURCES[0]:
        informativeness = _ui.memo(
            ("pw_info", judge, category, anchor), lambda: pv.measured_informativeness(counts, anchor)
        )
        (_ui.caption if informativeness else _ui.info)(pv.informativeness_sentence(anchor, informativeness))
    else:
        typed = pv.INPUTS["informativeness"]
        informativeness = _ui.linked_input(st.number_input, param="typed_i", key="pw_info_typed", **typed)
    if not edges:
        st.info("Pick at least one edge above.")
    else:
        try:
            plan = pw.sample_size_plan(sorted(edges), informativeness=informativeness, **test)
        except ValueError as exc:
            _ui.error(exc)
        else:
            used = anchor if source == pv.INFO_SOURCES[0] else None
            view.plan(
                plan, anchor=used, informativeness=informativeness, n_models=counts.n_models, prices=prices
            )
    with st.expander("The paper's sample sizes, reproduced"):
        _ui.table(pv.paper_table_view(), name="paper_sample_sizes.csv", key="dl_pw_paper")
        st.caption(pv.PAPER_TABLE_NOTE)

    # -- 2. Wilcoxon power by simulation ----------------------------------------------------------
    st.header("2 · For comparison: simulated sign and Wilcoxon tests on this file's verdicts")
    with st.expander("How the simulation works"):
        st.markdown(pv.WILCOXON_INTRO)
    dists = _ui.memo_or_info(("pw_dists", judge, category), lambda: pw.difference_distributions(counts))
    if dists is not None:
        c = view.power_simulation(pv, dists, ranked, anchor)
        chosen, nominal, label, window, pool = c["chosen"], c["nominal"], c["label"], c["window"], c["pool"]
        max_n, seed, sims, mode = c["max_n"], c["seed"], c["sims"], window
        grid = pv.simulation_grid(max_n)
        if problem := pv.empty_selection_sentence(dists, chosen, label, window=window):
            _ui.info(problem)
        else:
            sim = {"alpha": alpha, "target_power": target, "two_sided": two_sided, "simulations": sims}
            key = ("pw_curve", judge, category, mode, label, pool if window else anchor, max_n, seed)
            with _ui.progress_bar("Simulating…") as progress:
                curve = _ui.memo(
                    (*key, *sim.values()),
                    lambda: pw.wilcoxon_power(
                        chosen, grid, seed=seed, edge=nominal, progress=progress, **sim
                    ),
                )
            view.curve(curve, largest=int(grid[-1]), label=label, chosen=chosen, anchor=anchor)

    # -- 3. what this dataset can detect ---------------------------------------------------------
    st.header("3 · What this dataset can detect")
    first, label = pv.COMPARE_MODES[0 if summary.design == "anchor-only" else 1], "Compare adjacent models"
    radio = {"key": "pw_compare", "default": first, "horizontal": True, "help": pv.HELP["compare"]}
    compare = _ui.linked_choice(st.radio, label, pv.COMPARE_MODES, param="compare", **radio)
    use_anchor = anchor if compare == pv.COMPARE_MODES[0] else None
    try:
        result = _ui.memo(
            ("pw_detect", judge, category, use_anchor, alpha, target, method),
            lambda: pv.dataset_detection(
                counts, board, anchor=use_anchor, alpha=alpha, power=target, method=method
            ),
        )
    except ValueError as exc:
        _ui.error(exc)
        _ui.stop()
    view.detection(result, judge)
    view.monitor_section(store, judge, category, ranked, alpha)
