"""Anchors: which anchor to use (Don-Yehiya et al. 2026): per-anchor tau and the inverted U,
informativeness, win-rate distributions, one anchor's ranking beside all pairs and humans, and
the anchor effect beside the judge effect. Planning (pilots, sweeps, the planner) is the Anchor
planning page. On an anchor-only table (AlpacaEval, Arena-Hard) it shows what applies."""

from __future__ import annotations

import streamlit as st

import ui as _ui
from evalcore import anchors as an
from evalcore.errors import DesignError
from evalcore.plots import anchors as figures
from evalcore.present import anchors as av
from evalcore.verdicts import VerdictFilter
from ui import anchor_pages as view
from ui.anchor_pages import captions, resamples_input, run_on_click, setup

with _ui.page("Anchors"):
    st.title("Anchors")
    p = setup()
    sweep, chosen, key = p.sweep, p.chosen, (p.judge, p.category, p.both)

    def _win_rates(default: list[str]) -> None:
        """The win-rate distributions of the anchors picked (every section's third face)."""
        pick = {"param": "hist", "key": "anchors_hist_pick", "default": default, "max_selections": 6}
        shown = _ui.linked_multi(st.multiselect, "Anchors side by side", p.anchors, **pick)  # in the link
        try:
            dists = [
                _ui.memo(("anchor_wrd", *key, a), lambda a=a: an.win_rate_distribution(p.counts, a))
                for a in shown
            ]
        except DesignError as exc:
            return _ui.info(exc)
        if not dists:
            return st.info("Pick at least one anchor.")
        _ui.chart(figures.win_rate_histograms(dists), key="anchors_hist")
        st.caption(av.WIN_RATE_NOTE)
        st.markdown("\n".join("- " + _ui.md(line) for line in av.win_rate_sentences(dists)))
        filt = VerdictFilter(judge=p.judge, category=p.category, beats_all=chosen)
        beats = _ui.memo(("anchor_wrd", *key, chosen), lambda: an.win_rate_distribution(p.counts, chosen))
        cases = _ui.memo(("case_stats", "beats", *key, chosen), lambda: p.store.case_stats(filt)).cases
        _ui.verdicts_link(av.beats_link_label(chosen, beats.anchor_beats_all, cases), filt)
        _ui.download_csv(av.win_rate_rows(dists), f"win_rate_distribution_{p.judge}.csv", key="dl_anchor_wrd")

    ranking = _ui.memo(
        ("anchor_ranking", *key, p.tau, p.hkey, chosen),
        lambda: an.anchor_ranking(p.counts, chosen, tau=p.tau, human_ranking=p.human),
    )
    if sweep.needs_all_pairs:  # anchor-only: the anchor's ranking, informativeness, win rates, humans
        st.subheader(_ui.md(f"Ranking by the anchor: {chosen}"))
        view.explorer(ranking, chosen, p.tau, p.judge, human_hint=p.human is None)
        st.subheader("Informativeness")
        st.markdown(av.INFO_DEF)
        st.markdown(av.ceiling_text(sweep, drawn=False))
        st.subheader("Win-rate distribution")
        _win_rates([chosen])
        _ui.stop()

    labels = ["Per-anchor rankings", "Informativeness", "Win-rate distributions", "Explorer"]
    params = {0: ("resamples",), 2: ("hist",)}  # the link's settings of a tab, kept while it is hidden
    tabs, shown = _ui.open_tabs([*labels, "Anchor vs judge"], key="anchors_tab", params=params)
    if shown[0]:
        with tabs[0]:
            st.subheader("Per-anchor rankings")
            _ui.tiles(av.recommended_metrics(sweep, p.tau))
            rounds = resamples_input()
            stability = run_on_click(
                "stability",
                ("anchor_stability", *key, p.tau, rounds),
                "How sure is the recommendation?",
                lambda progress: an.anchor_stability(p.counts, rounds=rounds, tau=p.tau, progress=progress),
                help=av.STABILITY_HELP,
            )
            if stability is not None:
                view.stability(stability, p.judge)
            captions(av.sweep_caption(sweep, p.tau), av.all_pairs_human_caption(sweep, p.tau))
            _ui.table(av.sweep_table(sweep), sweep.table, f"anchors_{p.judge}.csv", key="dl_anchor_sweep")
            _ui.chart(figures.inverted_u(sweep, highlight=chosen), key="anchors_u")
            st.caption(av.INVERTED_U_NOTE)

    if shown[1]:
        with tabs[1]:
            st.subheader("Informativeness")
            st.markdown(av.INFO_DEF)
            _ui.chart(figures.informativeness_bars(sweep, highlight=chosen), key="anchors_info_bars")
            st.markdown(av.ceiling_text(sweep))
            _ui.chart(figures.tau_vs_informativeness(sweep, highlight=chosen), key="anchors_info_tau")
            captions(av.fit_caption(sweep, p.tau))

    if shown[2]:
        with tabs[2]:
            st.subheader("Win-rate distributions")
            _win_rates(av.histogram_defaults(sweep, chosen))

    if shown[3]:
        with tabs[3]:
            st.subheader(_ui.md(f"Anchor explorer: {chosen}"))
            view.explorer(ranking, chosen, p.tau, p.judge)
            _ui.chart(figures.rank_comparison(ranking), key="anchors_slope")

    if shown[4]:
        with tabs[4]:
            st.subheader("Anchor effect beside judge effect")
            judges = p.store.judges()
            effect = None
            if len(judges) < 2:
                st.info("This table has one judge: the judge effect needs two or more judges.")
            else:

                def _all_judges(progress):  # each judge's sweep is shared with the rest of the page
                    sweeps = {}
                    for n, j in enumerate(judges):
                        c = _ui.counts(p.store, j, p.category, both_orders=p.both)
                        sweeps[j] = _ui.memo(
                            ("anchor_sweep", j, p.category, p.both, p.tau, p.hkey),
                            lambda c=c: an.anchor_sweep(c, human_ranking=p.human, tau=p.tau),
                        )
                        progress((n + 1) / len(judges), f"judge {n + 1} of {len(judges)}")
                    return an.anchor_vs_judge(sweeps)

                effect = run_on_click(
                    "judges",
                    ("anchor_judges", p.category, p.both, p.tau, p.hkey),
                    "Compare every judge",
                    _all_judges,
                )
            if effect is not None:
                _ui.chart(figures.judge_effect_bars(effect), key="anchors_judges_fig")
                view.judge_effect(effect, p.tau)
