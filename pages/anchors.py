"""Anchors: which anchor to use, what it costs and what it throws away (Don-Yehiya et al. 2026).

Longer than the usual page storyboard because it has eight sections, most with their own inputs
(about 35 widgets; the planner alone takes ten): the widgets are the length. Every sentence, number
and display table comes from evalcore.anchors.presentation, one evalcore call per section. Splitting
the page in two (choosing an anchor; planning with pilots, sweeps and the planner) would bring each
half near the usual length.
"""

from __future__ import annotations

import streamlit as st

import ui as _ui
from evalcore import anchors as an
from evalcore.anchors import presentation as av
from evalcore.errors import DesignError
from evalcore.findings import ranking_key
from evalcore.io import read_human_ranking
from evalcore.plots import anchors as figures
from evalcore.schema import VerdictFormatError
from evalcore.verdicts import VerdictFilter

with _ui.page("Anchors"):

    def _run_on_click(name: str, key: tuple, button: str, compute, *, help: str | None = None):
        """Compute only when the button is pressed; show the last result for the same inputs."""
        slot, version = f"anchors_last_{name}", _ui.state()["version"]
        if st.button(button, key=f"anchors_btn_{name}", help=help):
            bar = st.progress(0.0, text="Starting…")
            try:
                _ui.memo(key, lambda: compute(lambda f, t: bar.progress(min(1.0, max(0.0, f)), text=t)))
                st.session_state[slot] = (version, key)
            except DesignError as exc:  # the design does not identify it: say so, not an error
                _ui.info(exc)
                st.session_state.pop(slot, None)
            except ValueError as exc:
                _ui.error(exc)
                st.session_state.pop(slot, None)
            bar.empty()
        return _ui.memo(key, lambda: None) if st.session_state.get(slot) == (version, key) else None

    def _captions(*lines: str | None) -> None:
        """The app's own captions (no user text), skipping the ones that do not apply."""
        for line in filter(None, lines):
            st.caption(line)

    st.title("Anchors")
    store = _ui.require_data()
    _ui.demo_banner()
    st.markdown(av.INTRO)
    c1, c2, c3, c4 = st.columns([2, 2, 1.3, 1.5])
    with c1:
        judge = _ui.judge_picker(store, key="anchors_judge")
    with c2:
        category = _ui.category_picker(store, key="anchors_category")
    tau = c3.radio(
        "Kendall's tau",
        ("b", "a"),
        horizontal=True,
        key="anchors_tau",
        format_func=av.tau_name,
        help=av.TAU_HELP,
    )
    with c4:
        both = _ui.orders_picker(key="anchors_orders")
    s = _ui.state()
    with st.expander(
        "Human ranking (model, score; higher is better)", expanded=s.get("human_ranking") is None
    ):
        upload = st.file_uploader(
            "Upload a human ranking", type=["csv", "tsv", "json", "jsonl"], key="anchors_human_upload"
        )
        if upload is not None:
            try:
                s["human_ranking"] = read_human_ranking(upload.getvalue(), name=upload.name)
                st.success(_ui.md(f"Loaded {upload.name}: {len(s['human_ranking'])} models."))
            except VerdictFormatError as exc:
                _ui.error(exc)
        if s.get("human_ranking") is not None:
            st.dataframe(s["human_ranking"], hide_index=True, height=200)
            _ui.download_csv(s["human_ranking"], "human_ranking.csv", key="dl_anchor_human")
        else:
            st.caption("No human ranking is loaded: the human columns stay empty.")
    human = s.get("human_ranking")
    hkey = ranking_key(human)  # the Overview page shares this cache key
    try:
        counts = _ui.counts(store, judge, category, both_orders=both)
        if counts.n_models < 2 or counts.calls == 0:
            st.warning(
                "This selection has verdicts for fewer than two models: there is no anchor to "
                "study. Choose another judge or category."
            )
            st.stop()
        with st.spinner("Ranking the models against every anchor…"):  # seconds on arena-sized tables
            sweep = _ui.memo(
                ("anchor_sweep", judge, category, both, tau, hkey),
                lambda: an.anchor_sweep(counts, human_ranking=human, tau=tau),
            )
    except DesignError as exc:
        _ui.info(exc)
        st.stop()
    except ValueError as exc:
        _ui.error(exc)
        st.stop()
    for note in sweep.notes:
        _ui.info(note)
    if sweep.needs_all_pairs:
        _ui.caption(sweep.needs_all_pairs)
    anchors = list(sweep.table["anchor"])
    if not anchors:
        st.warning(
            "No model met at least two others in this selection: no anchor-based ranking can be formed."
        )
        st.stop()
    linked = _ui.url_param("anchor")  # a shared link may name the anchor
    default = next((anchors.index(a) for a in (linked, sweep.recommended) if a in anchors), 0)
    chosen = st.selectbox(
        "Chosen anchor (highlighted in the figures, explored below)",
        anchors,
        index=default,
        key="anchors_chosen",
        help="Defaults to the most informative anchor; the link keeps your choice.",
    )
    _ui.set_url_param("anchor", chosen)
    tabs = st.tabs(
        [
            "Per-anchor rankings",
            "Informativeness",
            "Win-rate distributions",
            "Explorer",
            "Pilot screening",
            "Sweeps",
            "Anchor vs judge",
            "Planner",
        ]
    )

    with tabs[0]:
        st.subheader("Per-anchor rankings")
        _ui.tiles(av.recommended_metrics(sweep, tau))
        rounds = int(
            st.number_input("Instruction resamples", 50, 2000, 200, step=50, key="anchors_stab_rounds")
        )
        stability = _run_on_click(
            "stability",
            ("anchor_stability", judge, category, both, tau, rounds),
            "How sure is the recommendation?",
            lambda progress: an.anchor_stability(counts, rounds=rounds, tau=tau, progress=progress),
            help=av.STABILITY_HELP,
        )
        if stability is not None:
            if av.stability_sentence(stability):
                st.markdown(_ui.md(av.stability_sentence(stability)))
            for note in stability.notes:
                _ui.warning(note)
            _captions(av.stability_caption(stability))
            st.dataframe(av.stability_table(stability), hide_index=True, width="stretch")
            _ui.download_csv(stability.table, f"anchor_stability_{judge}.csv", key="dl_anchor_stab")
        _captions(av.sweep_caption(sweep, tau), av.quadratic_human_caption(sweep, tau))
        st.dataframe(av.sweep_table(sweep), hide_index=True, width="stretch")
        _ui.download_csv(sweep.table, f"anchors_{judge}.csv", key="dl_anchor_sweep")
        if sweep.has_quadratic:
            _ui.chart(figures.inverted_u(sweep, highlight=chosen), key="anchors_u")
            st.caption(av.INVERTED_U_NOTE)

    with tabs[1]:
        st.subheader("Informativeness")
        st.markdown(av.INFO_DEF)
        _ui.chart(figures.informativeness_bars(sweep, highlight=chosen), key="anchors_info_bars")
        st.markdown(av.ceiling_text(sweep))
        if sweep.has_quadratic:
            _ui.chart(figures.tau_vs_informativeness(sweep, highlight=chosen), key="anchors_info_tau")
            _captions(av.fit_caption(sweep, tau))

    with tabs[2]:
        st.subheader("Win-rate distributions")
        shown = st.multiselect(
            "Anchors side by side",
            anchors,
            default=av.histogram_defaults(sweep, chosen),
            key="anchors_hist_pick",
            max_selections=6,
        )
        dists = []
        try:
            dists = [
                _ui.memo(
                    ("anchor_wrd", judge, category, both, a), lambda a=a: an.win_rate_distribution(counts, a)
                )
                for a in shown
            ]
        except DesignError as exc:
            _ui.info(exc)
        if dists:
            _ui.chart(figures.win_rate_histograms(dists), key="anchors_hist")
            st.caption(av.WIN_RATE_NOTE)
            st.markdown("\n".join("- " + _ui.md(line) for line in av.win_rate_sentences(dists)))
            _ui.verdicts_link(
                "Read the verdicts against the chosen anchor",
                VerdictFilter(judge=judge, category=category, model_a=chosen),
            )
            _ui.download_csv(
                av.win_rate_rows(dists), f"win_rate_distribution_{judge}.csv", key="dl_anchor_wrd"
            )
        elif not shown:
            st.info("Pick at least one anchor.")

    with tabs[3]:
        st.subheader(_ui.md(f"Anchor explorer: {chosen}"))
        ranking = _ui.memo(
            ("anchor_ranking", judge, category, both, tau, chosen),
            lambda: an.anchor_ranking(counts, chosen, tau=tau),
        )
        _ui.tiles(av.explorer_metrics(ranking, tau))
        _ui.caption(av.explorer_caption(ranking, chosen))
        st.dataframe(av.explorer_table(ranking), hide_index=True, width="stretch")
        _ui.download_csv(ranking.table, f"anchor_{chosen}_{judge}.csv", key="dl_anchor_rank")
        _ui.chart(figures.rank_comparison(ranking), key="anchors_slope")

    with tabs[4]:
        st.subheader("Pilot screening")
        st.caption(av.PILOT_NOTE)
        p1, p2, p3, p4 = st.columns(4)
        n_inst, n_mod = counts.n_instructions, counts.n_models
        k = int(p1.number_input("Instructions k", 1, max(1, n_inst), min(10, n_inst), key="anchors_pilot_k"))
        pool = int(
            p2.number_input("Models in the pool", min(3, n_mod), n_mod, n_mod, key="anchors_pilot_pool")
        )
        reps = int(p3.number_input("Repetitions R", 1, 500, 30, key="anchors_pilot_reps"))
        seed = int(p4.number_input("Random seed", 0, 2**31 - 1, 0, key="anchors_pilot_seed"))
        pilot = _run_on_click(
            "pilot",
            ("anchor_pilot", judge, category, both, k, pool, reps, seed),
            "Run the pilot screening",
            lambda progress: an.pilot_screening(
                counts, k=k, n_models=pool, repetitions=reps, seed=seed, progress=progress
            ),
        )
        if pilot is not None:
            _ui.tiles(av.pilot_metrics(pilot))
            st.markdown(_ui.md(av.pilot_extremes_sentence(pilot)))
            _ui.chart(figures.pilot_scatter(pilot), key="anchors_pilot_fig")
            st.dataframe(av.pilot_table(pilot), hide_index=True, width="stretch")
            _ui.download_csv(pilot.table, f"anchor_pilot_{judge}.csv", key="dl_anchor_pilot")

    with tabs[5]:
        st.subheader("Number of instructions (Don-Yehiya et al. 2026, Fig. 4)")
        w1, w2, w3 = st.columns(3)
        ref = w1.radio(
            "Reference ranking",
            ["human", "quadratic"] if human is not None else ["quadratic"],
            horizontal=True,
            key="anchors_sweep_ref",
        )
        sweep_reps = int(w2.number_input("Repetitions", 1, 200, 30, key="anchors_sweep_reps"))
        sweep_seed = int(w3.number_input("Random seed", 0, 2**31 - 1, 0, key="anchors_sweep_seed"))
        highlight = st.multiselect(
            "Anchors drawn on their own",
            anchors,
            key="anchors_sweep_pick",
            default=list(dict.fromkeys([anchors[0], chosen])),
            max_selections=5,
        )
        sizes = _run_on_click(
            "sizes",
            ("anchor_sizes", judge, category, both, tau, hkey, ref, sweep_reps, sweep_seed),
            "Run the instruction-count sweep",
            lambda progress: an.sample_size_sweep(
                counts,
                repetitions=sweep_reps,
                seed=sweep_seed,
                human_ranking=human,
                reference=ref,
                tau=tau,
                progress=progress,
            ),
        )
        if sizes is not None:
            _ui.chart(figures.sample_size_curves(sizes, anchors=tuple(highlight)), key="anchors_sizes_fig")
            st.caption(av.sizes_caption(sizes))
            _ui.download_csv(sizes.summary, f"anchor_size_sweep_{judge}.csv", key="dl_anchor_sizes")
        st.subheader("Number of anchors (Don-Yehiya et al. 2026, Fig. 7)")
        v1, v2 = st.columns(2)
        perms = int(v1.number_input("Random orders", 1, 500, 40, key="anchors_count_perms"))
        count_seed = int(v2.number_input("Random seed", 0, 2**31 - 1, 0, key="anchors_count_seed"))
        count = _run_on_click(
            "count",
            ("anchor_count", judge, category, both, tau, perms, count_seed),
            "Run the anchor-count sweep",
            lambda progress: an.anchor_count_sweep(
                counts, permutations=perms, seed=count_seed, tau=tau, progress=progress
            ),
        )
        if count is not None:
            _ui.chart(figures.anchor_count_curve(count), key="anchors_count_fig")
            st.caption(av.COUNT_CAPTION)
            _ui.download_csv(count.summary, f"anchor_count_sweep_{judge}.csv", key="dl_anchor_count")

    with tabs[6]:
        st.subheader("Anchor effect beside judge effect (Don-Yehiya et al. 2026, Table 3)")
        judges = store.judges()
        effect = None
        if len(judges) < 2:
            st.info("This table has one judge: the judge effect needs two or more judges.")
        else:

            def _all_judges(progress):  # each judge's sweep is shared with the rest of the page
                sweeps = {}
                for n, j in enumerate(judges):
                    c = _ui.counts(store, j, category, both_orders=both)
                    sweeps[j] = _ui.memo(
                        ("anchor_sweep", j, category, both, tau, hkey),
                        lambda c=c: an.anchor_sweep(c, human_ranking=human, tau=tau),
                    )
                    progress((n + 1) / len(judges), f"judge {n + 1} of {len(judges)}")
                return an.anchor_vs_judge(sweeps)

            effect = _run_on_click(
                "judges", ("anchor_judges", category, both, tau, hkey), "Compare every judge", _all_judges
            )
        if effect is not None:
            _ui.chart(figures.judge_effect_bars(effect), key="anchors_judges_fig")
            if av.judge_effect_sentence(effect, tau):
                st.markdown(av.judge_effect_sentence(effect, tau))
            st.caption(av.JUDGE_CAPTION)
            st.dataframe(av.judge_effect_table(effect), hide_index=True, width="stretch")
            _ui.download_csv(effect.table, "anchor_vs_judge.csv", key="dl_anchor_judges")

    with tabs[7]:
        st.subheader("Planner (Don-Yehiya et al. 2026, Fig. 5)")
        d = av.planner_defaults(counts, _ui.counts(store, judge, category), pilot, sweep, chosen)
        g1, g2, g3 = st.columns(3)
        n_models = g1.number_input("Models to evaluate", 2, 1000, d["models"], key="plan_models")
        natural = g2.checkbox(
            "A natural anchor exists",
            key="plan_natural",
            help="E.g. the method a new one is meant to improve on.",
        )
        full = g3.checkbox("A full ranking is needed", value=True, key="plan_full")
        h1, h2, h3 = st.columns(3)
        budget = h1.number_input(
            "Budget in judge calls (0 = no limit)", 0, 10**10, 0, step=1000, key="plan_budget"
        )
        n_inst = h2.number_input(
            "Instructions planned (0 = as many as needed)", 0, 10**7, d["instructions"], key="plan_inst"
        )
        orders = h3.radio(
            "Orders per pair",
            (1, 2),
            index=d["orders"] - 1,
            horizontal=True,
            key="plan_orders",
            help="2 when every pair is judged in both slot orders (the "
            "loaded table's design is the default).",
        )
        k1, k2, k3, k4 = st.columns(4)
        info = k1.number_input(
            "Informativeness of the chosen anchor",
            0.01,
            1.0,
            d["informativeness"],
            step=0.01,
            format="%.3f",
            key=f"plan_info_{chosen}",
            help="From the pilot when it has run, else from all data.",
        )
        direct = k2.number_input(
            "Decisive share of direct comparisons",
            0.01,
            1.0,
            d["decisive"],
            step=0.01,
            format="%.3f",
            key="plan_direct",
            help="Share of non-tie verdicts in this selection.",
        )
        edge = k3.number_input(
            "Edge to detect",
            0.01,
            0.45,
            0.05,
            step=0.01,
            key="plan_edge",
            help="+5% = the better model wins 55% of discordant samples.",
        )
        pairs = k4.number_input("Pairs of interest", 0, 10**6, 0, key="plan_pairs")
        try:
            plan = an.plan_evaluation(
                int(n_models),
                natural_anchor=natural,
                full_ranking=full,
                budget=int(budget) or None,
                n_instructions=int(n_inst) or None,
                anchor=chosen,
                informativeness=float(info),
                direct_decisive_rate=float(direct),
                pairs_of_interest=int(pairs) or None,
                orders=int(orders),
                edge=float(edge),
            )
        except ValueError as exc:
            _ui.error(exc)
        else:
            st.success("Recommended design: **" + _ui.md(plan.recommendation) + "**")
            st.markdown("\n".join("- " + _ui.md(reason) for reason in plan.reasons))
            for warning in plan.warnings:
                _ui.warning(warning)
            st.caption(av.plan_caption(plan))
            st.dataframe(av.plan_table(plan), hide_index=True, width="stretch")
            _ui.download_csv(plan.options, "evaluation_plan.csv", key="dl_anchor_plan")
            st.markdown("Sentence for the report:")
            st.code(plan.sentence, language=None, wrap_lines=True)
