"""Power: how many samples separate two models, and what the loaded data can separate
(Don-Yehiya et al. 2026).

A little over the usual page length because it has three sections with their own settings (the
widgets are the length); every sentence, number and display table comes from
evalcore.power.presentation, one evalcore call per section.
"""

from __future__ import annotations

import streamlit as st

import ui as _ui
from evalcore import power as pw
from evalcore.anchors import anchor_informativeness
from evalcore.errors import DesignError
from evalcore.plots import power as figures
from evalcore.plots.common import CONFIG
from evalcore.power import presentation as pv
from evalcore.ranking import leaderboard

with _ui.page("Power"):
    st.title("Power")
    st.caption(pv.INTRO)
    store = _ui.require_data()
    _ui.demo_banner()
    c1, c2 = st.columns(2)
    with c1:
        judge = _ui.judge_picker(store, key="pw_judge")
    with c2:
        category = _ui.category_picker(store, key="pw_category")
    counts = _ui.counts(store, judge, category)
    if counts.n_models < 2:
        st.warning(
            "This selection has verdicts for fewer than two models, so there is nothing to "
            "compare. Choose another judge or category."
        )
        st.stop()
    summary = _ui.memo(("pw_summary",), store.summary)
    # Defaults that depend on the data (anchor, comparison) are re-applied when new data is loaded.
    version = _ui.state()["version"]
    if st.session_state.get("pw_data_version") != version:
        for stale in ("pw_anchor", "pw_compare", "pw_model_a", "pw_model_b", "pw_pool_anchor"):
            st.session_state.pop(stale, None)
        st.session_state["pw_data_version"] = version
    board = _ui.memo(("pw_board", judge, category), lambda: leaderboard(counts, rounds=0))
    ranked = list(board.table["model"])
    default_anchor = summary.anchor if summary.anchor in ranked else ranked[len(ranked) // 2]

    st.subheader("Test settings")
    s1, s2, s3, s4 = st.columns(4)
    alpha = float(
        s1.number_input("α (significance level)", 0.001, 0.5, 0.05, step=0.01, format="%.3f", key="pw_alpha")
    )
    target = float(s2.number_input("Power", 0.5, 0.99, 0.80, step=0.05, format="%.2f", key="pw_power"))
    two_sided = s3.toggle("Two-sided", key="pw_two_sided", help=pv.HELP["two_sided"])
    method = "exact" if s4.toggle("Exact binomial", key="pw_exact", help=pv.HELP["exact"]) else "normal"
    anchor = st.selectbox(
        "Anchor",
        ranked,
        index=ranked.index(default_anchor),
        key="pw_anchor",
        help="The model every other model is compared against.",
    )

    # -- 1. the sign test ------------------------------------------------------------------------
    st.header("1 · Sign-test sample size (Don-Yehiya et al. 2026)")
    st.markdown(pv.SIGN_TEST_INTRO)
    edges = st.multiselect(
        "Edges to detect", pv.EDGE_CHOICES, default=[0.05, 0.10], format_func=pv.edge_label, key="pw_edges"
    )
    source = st.radio(
        "Informativeness I",
        ("From the loaded data, for the anchor", "Type it in"),
        horizontal=True,
        key="pw_info_source",
    )
    informativeness = None
    if source.startswith("From"):
        try:
            informativeness = _ui.memo(
                ("pw_info", judge, category, anchor), lambda: anchor_informativeness(counts, anchor)
            )
        except DesignError:  # one battle per prompt: said in the sentence below
            pass
        informativeness = pv.usable_informativeness(informativeness)
        show = _ui.caption if informativeness else _ui.info
        show(pv.informativeness_sentence(anchor, informativeness))
    else:
        informativeness = st.number_input(
            "I (0–1)",
            0.01,
            1.0,
            0.45,
            step=0.01,
            format="%.3f",
            key="pw_info_typed",
            help="0.45 is o3's informativeness in the paper; 0.54 the mean.",
        )
    if not edges:
        st.info("Pick at least one edge above.")
    else:
        try:
            plan = pw.sample_size_plan(
                sorted(edges),
                alpha=alpha,
                power=target,
                informativeness=informativeness,
                two_sided=two_sided,
                method=method,
            )
        except ValueError as exc:
            _ui.error(exc)
        else:
            st.dataframe(pv.sample_size_table(plan), hide_index=True, width="stretch")
            st.caption(pv.sample_size_caption(plan))
            for note in plan.notes:
                _ui.caption(note)
            _ui.download_csv(plan.table, "sign_test_sample_sizes.csv", key="dl_pw_plan")
            if len(plan.table) > 1:
                st.plotly_chart(
                    figures.sample_size_figure(plan.table, informativeness=informativeness),
                    config=CONFIG,
                    key="pw_plan_fig",
                )
    with st.expander("The paper's sample sizes, reproduced"):
        paper = pv.paper_table_view()
        st.dataframe(paper, hide_index=True, width="stretch")
        st.caption(pv.PAPER_TABLE_NOTE)
        _ui.download_csv(paper, "paper_sample_sizes.csv", key="dl_pw_paper")

    # -- 2. Wilcoxon power by simulation ----------------------------------------------------------
    st.header("2 · Wilcoxon signed-rank power by simulation (Don-Yehiya et al. 2026)")
    st.markdown(pv.WILCOXON_INTRO)
    mode = st.radio(
        "Distributions",
        ("Every pair whose edge is in a window (as the paper)", "One model pair"),
        horizontal=True,
        key="pw_mode",
    )
    window = mode.startswith("Every")
    dists = None
    try:
        dists = _ui.memo(("pw_dists", judge, category), lambda: pw.difference_distributions(counts))
    except ValueError as exc:
        _ui.info(exc)
    if dists is not None:
        g1, g2, g3, g4 = st.columns(4)
        if window:
            low = g1.number_input(
                "Edge window from",
                0.0,
                0.49,
                0.05,
                step=0.01,
                format="%.2f",
                key="pw_window",
                help="Distributions with edge in [from, from + 1%), as in the paper.",
            )
            pool = g2.selectbox("Anchors", ["All anchors", *ranked], key="pw_pool_anchor")
            chosen, nominal, label = pv.edge_window(dists, low, None if pool == "All anchors" else pool)
        else:
            others = [m for m in ranked if m != anchor]
            model_a = g1.selectbox("Model A", others, index=0, key="pw_model_a")
            rest = [m for m in others if m != model_a]
            model_b = g2.selectbox("Model B", rest, index=0 if rest else None, key="pw_model_b")
            chosen, nominal, label = pv.one_pair(dists, model_a, model_b, anchor)
        max_n = int(g3.number_input("Largest N", 50, 20000, 2000, step=250, key="pw_max_n"))
        seed = int(g4.number_input("Random seed", min_value=0, value=0, step=1, key="pw_seed"))
        sims = int(
            st.select_slider("Simulations per N", (500, 1000, 2000, 5000, 10000), value=2000, key="pw_sims")
        )
        grid = pv.simulation_grid(max_n)
        problem = pv.empty_selection_sentence(dists, chosen, label, window=window)
        if problem:
            _ui.info(problem)
        else:
            bar = st.progress(0.0, text="Simulating…")
            key = (
                "pw_curve",
                judge,
                category,
                mode,
                label,
                pool if window else anchor,
                alpha,
                target,
                two_sided,
                max_n,
                sims,
                seed,
            )
            curve = _ui.memo(
                key,
                lambda: pw.wilcoxon_power(
                    chosen,
                    grid,
                    alpha=alpha,
                    target_power=target,
                    two_sided=two_sided,
                    simulations=sims,
                    seed=seed,
                    edge=nominal,
                    progress=lambda f, t: bar.progress(min(1.0, f), text=t),
                ),
            )
            bar.empty()
            _ui.tiles(pv.curve_metrics(curve, int(grid[-1])))
            st.plotly_chart(figures.power_curve_figure(curve), config=CONFIG, key="pw_curve_fig")
            _ui.caption(pv.curve_caption(curve, label))
            _ui.download_csv(curve.frame, "power_curve.csv", key="dl_pw_curve")
            title = pv.difference_title(chosen, anchor)
            st.plotly_chart(figures.difference_figure(chosen, title=title), config=CONFIG, key="pw_diff_fig")
            with st.expander("The distributions used"):
                st.dataframe(pv.distributions_table(chosen), hide_index=True, width="stretch")
                st.caption(pv.DISTRIBUTIONS_NOTE)
                _ui.download_csv(chosen.table, "difference_distributions.csv", key="dl_pw_dists")

    # -- 3. what this dataset can detect ---------------------------------------------------------
    st.header("3 · What this dataset can detect")
    modes = ("Against the anchor", "Head-to-head")
    compare = st.radio(
        "Compare adjacent models",
        modes,
        index=0 if summary.design == "anchor-only" else 1,
        horizontal=True,
        key="pw_compare",
        help=pv.HELP["compare"],
    )
    use_anchor = anchor if compare == modes[0] else None
    info_for_headline = informativeness if use_anchor is not None else None
    try:
        result = _ui.memo(
            ("pw_detect", judge, category, use_anchor, info_for_headline, alpha, target, two_sided, method),
            lambda: pw.detectable_edges(
                counts,
                board,
                anchor=use_anchor,
                informativeness=info_for_headline,
                alpha=alpha,
                power=target,
                two_sided=two_sided,
                method=method,
            ),
        )
    except ValueError as exc:
        _ui.error(exc)
        st.stop()
    _ui.tiles(pv.detectable_metrics(result))
    top = pv.top_pair_sentence(result)
    if top is not None:
        (st.success if top[0] == "success" else st.warning)(_ui.md(top[1]))
    for note in result.notes:
        _ui.info(note)
    if result.n_pairs:
        st.plotly_chart(figures.detectable_edges_figure(result), config=CONFIG, key="pw_detect_fig")
        st.dataframe(pv.detectable_table(result), hide_index=True, width="stretch")
        _ui.download_csv(result.table, f"detectable_edges_{judge}.csv", key="dl_pw_detect")
    st.caption(pv.detectable_caption(result))
