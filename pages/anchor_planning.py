"""Anchor planning: before judging a whole benchmark (Don-Yehiya et al. 2026): screen
anchors on a small pilot, see how tau grows with the number of instructions and of anchors, and
plan the design and its size. Which anchor the full data favour is the Anchors page."""

from __future__ import annotations

import streamlit as st

import ui as _ui
from evalcore import anchors as an
from evalcore.plots import anchors as figures
from evalcore.present import anchors as av
from ui.anchor_pages import planner_inputs, run_on_click, setup
from ui.budget import budget_section

with _ui.page("Anchor planning"):
    num = _ui.linked_number  # a whole-number input kept in the link (``?param=``)
    st.title("Anchor planning")
    p = setup(av.PLANNING_INTRO)
    prices = _ui.prices_input()
    key, n_inst, n_mod = (p.judge, p.category, p.both), p.counts.n_instructions, p.counts.n_models
    tabs = st.tabs(["Pilot screening", "Sweeps", "Planner"])
    pilot = None
    with tabs[0]:
        st.subheader("Pilot screening")
        st.caption(av.PILOT_NOTE)
        p1, p2, p3, p4 = st.columns(4)
        k = int(num(p1, "Instructions k", 1, max(1, n_inst), min(10, n_inst), "pilot_k", "anchors_pilot_k"))
        low = min(3, n_mod)
        pool = int(num(p2, "Models in the pool", low, n_mod, n_mod, "pilot_pool", "anchors_pilot_pool"))
        reps = int(num(p3, "Repetitions R", 1, 500, 30, "pilot_reps", "anchors_pilot_reps"))
        seed = int(num(p4, "Random seed", 0, 2**31 - 1, 0, "pilot_seed", "anchors_pilot_seed"))
        pilot = run_on_click(
            "pilot",
            ("anchor_pilot", *key, k, pool, reps, seed),
            "Run the pilot screening",
            lambda progress: an.pilot_screening(
                p.counts, k=k, n_models=pool, repetitions=reps, seed=seed, progress=progress
            ),
        )
        if pilot is not None:
            _ui.tiles(av.pilot_metrics(pilot))
            st.markdown(_ui.md(av.pilot_extremes_sentence(pilot)))
            _ui.chart(figures.pilot_scatter(pilot), key="anchors_pilot_fig")
            name = f"anchor_pilot_{p.judge}.csv"
            _ui.table(av.pilot_table(pilot), pilot.table, name, key="dl_anchor_pilot")

    with tabs[1]:
        st.subheader("Number of instructions")
        w1, w2, w3 = st.columns(3)
        choices = ["human", an.ALL_PAIRS] if p.human is not None else [an.ALL_PAIRS]
        radio = {
            "param": "reference",
            "horizontal": True,
            "key": "anchors_sweep_ref",
            "renamed": an.RENAMED_REFERENCES,
        }
        radio["format_func"] = av.reference_words
        ref = _ui.linked_choice(w1.radio, "Reference ranking", choices, **radio)
        sweep_reps = int(num(w2, "Repetitions", 1, 200, 30, "sweep_reps", "anchors_sweep_reps"))
        sweep_seed = int(num(w3, "Random seed", 0, 2**31 - 1, 0, "sweep_seed", "anchors_sweep_seed"))
        drawn = list(dict.fromkeys([p.anchors[0], p.chosen]))
        pick = {"param": "drawn", "key": "anchors_sweep_pick", "default": drawn, "max_selections": 5}
        highlight = _ui.linked_multi(st.multiselect, "Anchors drawn on their own", p.anchors, **pick)
        sweep = {"repetitions": sweep_reps, "seed": sweep_seed, "reference": ref, "tau": p.tau}
        sweep["human_ranking"] = p.human
        sizes = run_on_click(
            "sizes",
            ("anchor_sizes", *key, p.tau, p.hkey, ref, sweep_reps, sweep_seed),
            "Run the instruction-count sweep",
            lambda progress: an.sample_size_sweep(p.counts, progress=progress, **sweep),
        )
        if sizes is not None:
            _ui.chart(figures.sample_size_curves(sizes, anchors=tuple(highlight)), key="anchors_sizes_fig")
            st.caption(av.sizes_caption(sizes))
            _ui.download_csv(sizes.summary, f"anchor_size_sweep_{p.judge}.csv", key="dl_anchor_sizes")
        st.subheader("Number of anchors")
        v1, v2 = st.columns(2)
        perms = int(num(v1, "Random orders", 1, 500, 40, "count_orders", "anchors_count_perms"))
        count_seed = int(num(v2, "Random seed", 0, 2**31 - 1, 0, "count_seed", "anchors_count_seed"))
        count = run_on_click(
            "count",
            ("anchor_count", *key, p.tau, perms, count_seed),
            "Run the anchor-count sweep",
            lambda progress: an.anchor_count_sweep(
                p.counts, permutations=perms, seed=count_seed, tau=p.tau, progress=progress
            ),
        )
        if count is not None:
            _ui.chart(figures.anchor_count_curve(count), key="anchors_count_fig")
            st.caption(av.COUNT_CAPTION)
            _ui.download_csv(count.summary, f"anchor_count_sweep_{p.judge}.csv", key="dl_anchor_count")

    with tabs[2]:
        st.subheader("Planner")
        d = av.planner_defaults(p.counts, _ui.counts(p.store, p.judge, p.category), pilot, p.sweep, p.chosen)
        try:
            plan = an.plan_evaluation(**planner_inputs(d, p.chosen))
        except ValueError as exc:
            _ui.error(exc)
        else:
            st.success("Recommended design: **" + _ui.md(plan.recommendation) + "**")
            st.markdown("\n".join("- " + _ui.md(reason) for reason in plan.reasons))
            _ui.warning(*plan.warnings)
            st.caption(av.plan_caption(plan))
            if cost := av.plan_cost_sentence(plan, per_call=prices.per_call, per_label=prices.per_label):
                st.info(cost)
            shown = av.plan_table(plan, per_call=prices.per_call)
            _ui.table(shown, plan.options, "evaluation_plan.csv", key="dl_anchor_plan")
            st.markdown("Sentence for the report:")
            st.code(plan.sentence, language=None, wrap_lines=True)
        budget_section(p.store, p.judge, list(p.store.models()), prices=prices, anchors=True)
