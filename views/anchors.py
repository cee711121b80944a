"""Anchors: which anchor to use, what it costs and what it throws away (Don-Yehiya et al. 2026)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from evalcore.anchors import (
    anchor_count_sweep,
    anchor_ranking,
    anchor_stability,
    anchor_sweep,
    anchor_vs_judge,
    decisive_rate,
    orders_per_pair,
    pilot_screening,
    plan_evaluation,
    sample_size_sweep,
    win_rate_distribution,
)
from evalcore.errors import DesignError
from evalcore.findings import ranking_key
from evalcore.io import read_human_ranking
from evalcore.plots.anchors import (
    anchor_count_curve,
    informativeness_bars,
    inverted_u,
    judge_effect_bars,
    pilot_scatter,
    rank_comparison,
    sample_size_curves,
    tau_vs_informativeness,
    win_rate_histograms,
)
from evalcore.plots.common import CONFIG
from evalcore.schema import VerdictFormatError
from views import _ui

INFO_DEF = (
    "**Informativeness** I(p, A) (Don-Yehiya et al. 2026, §4.3): over instructions and pairs of models other "
    "than the anchor, the share whose verdicts against the anchor differ, compared on the judge's "
    "full scale and read from each model's point of view. Verdicts are compared within one slot "
    "order: on a table judged in both orders, each order's calls are compared separately, never "
    "averaged (averaging two calls would count position noise as information)."
)
CEILING = (
    "**The 3-level ceiling** (dotted line): when every verdict against the anchor is a win or a "
    "loss that follows one strength order, an instruction splits the {m} other models into those "
    "above and those below the anchor, so at most ⌊M/2⌋·⌈M/2⌉ / C(M, 2) = {c:.1%} of the pairs "
    "can differ (the paper's 0.5, reached by a middle anchor). Ties with the anchor form a third "
    "group and 5-level verdicts add magnitude, so an anchor can pass "
    "the line: it is a reference, not a hard limit for this judge."
)


def _run_on_click(name: str, key: tuple, button: str, compute, *, help: str | None = None):
    """Compute only when the button is pressed; show the last result for the same inputs."""
    s = _ui.state()
    slot = f"anchors_last_{name}"
    if st.button(button, key=f"anchors_btn_{name}", help=help):
        bar = st.progress(0.0, text="Starting…")

        def progress(fraction: float, text: str) -> None:
            bar.progress(min(1.0, max(0.0, fraction)), text=text)

        try:
            _ui.memo(key, lambda: compute(progress))
            st.session_state[slot] = (s["version"], key)
        except DesignError as exc:  # the design does not identify it: say so, not an error
            st.info(str(exc))
            st.session_state.pop(slot, None)
        except ValueError as exc:
            st.error(str(exc))
            st.session_state.pop(slot, None)
        bar.empty()
    last = st.session_state.get(slot)
    if last is not None and last == (s["version"], key):
        return _ui.memo(key, lambda: None)
    return None


st.title("Anchors")
store = _ui.require_data()
_ui.demo_banner()
st.markdown(
    "Arena-Hard- and AlpacaEval-style evaluations judge every model against **one anchor** "
    "instead of all pairs. Don-Yehiya et al. 2026 (*Mediocrity is the key for LLM as a Judge Anchor "
    "Selection*) shows that the usual anchors, the strongest or the weakest model, rank worst: "
    "a mid-ranked anchor gives a ranking closer to all pairs and wastes fewer judge calls."
)

c1, c2, c3, c4 = st.columns([2, 2, 1.3, 1.5])
with c1:
    judge = _ui.judge_picker(store, key="anchors_judge")
with c2:
    category = _ui.category_picker(store, key="anchors_category")
with c3:
    tau = st.radio("Kendall's tau", ("b", "a"), horizontal=True, key="anchors_tau",
                   format_func={"b": "tau-b", "a": "tau-a"}.get,
                   help="tau-b (default, scipy's kendalltau) divides by the untied pairs of each "
                   "ranking; tau-a divides by all pairs and counts tied pairs as neither.")
with c4:
    both = _ui.orders_picker(key="anchors_orders")

s = _ui.state()
with st.expander("Human ranking (model, score; higher is better)",
                 expanded=s.get("human_ranking") is None):
    upload = st.file_uploader("Upload a human ranking", type=["csv", "tsv", "json", "jsonl"],
                              key="anchors_human_upload")
    if upload is not None:
        try:
            s["human_ranking"] = read_human_ranking(upload.getvalue(), name=upload.name)
            st.success(f"Loaded {upload.name}: {len(s['human_ranking'])} models.")
        except VerdictFormatError as exc:
            st.error(str(exc))
    if s.get("human_ranking") is not None:
        st.dataframe(s["human_ranking"], hide_index=True, height=200)
        _ui.download_csv(s["human_ranking"], "human_ranking.csv", key="dl_anchor_human")
    else:
        st.caption("No human ranking is loaded: the human columns stay empty.")
human = s.get("human_ranking")
hkey = ranking_key(human)  # the Overview page shares this cache key

try:
    counts = _ui.counts(store, judge, category, both_orders=both)
except ValueError as exc:
    st.error(str(exc))
    st.stop()
if counts.n_models < 2 or counts.calls == 0:
    st.warning("This selection has verdicts for fewer than two models: there is no anchor to "
               "study. Choose another judge or category.")
    st.stop()
try:
    with st.spinner("Ranking the models against every anchor…"):  # seconds on arena-sized tables
        sweep = _ui.memo(("anchor_sweep", judge, category, both, tau, hkey),
                         lambda: anchor_sweep(counts, human_ranking=human, tau=tau))
except DesignError as exc:
    st.info(str(exc))
    st.stop()
except ValueError as exc:
    st.error(str(exc))
    st.stop()
for note in sweep.notes:
    st.info(note)
if sweep.needs_all_pairs:
    st.caption(sweep.needs_all_pairs)

anchors = list(sweep.table["anchor"])
if not anchors:
    st.warning("No model met at least two others in this selection: no anchor-based ranking "
               "can be formed.")
    st.stop()
linked = _ui.url_param("anchor")  # a shared link may name the anchor
default = (anchors.index(linked) if linked in anchors
           else anchors.index(sweep.recommended) if sweep.recommended in anchors else 0)
chosen = st.selectbox("Chosen anchor (highlighted in the figures, explored below)", anchors,
                      index=default, key="anchors_chosen",
                      help="Defaults to the most informative anchor; the link keeps your choice.")
_ui.set_url_param("anchor", chosen)
tau_name = "tau-b" if tau == "b" else "tau-a"

tabs = st.tabs(["Per-anchor rankings", "Informativeness", "Win-rate distributions", "Explorer",
                "Pilot screening", "Sweeps", "Anchor vs judge", "Planner"])

# -- 1 + 2: per-anchor rankings and the inverted U --------------------------------------------
with tabs[0]:
    st.subheader("Per-anchor rankings")
    m1, m2, m3 = st.columns(3)
    m1.metric("Recommended anchor", sweep.recommended or "—",
              help="The most informative anchor (Don-Yehiya et al. 2026, §5.3, §6).")
    stab_rounds = st.number_input("Instruction resamples", 50, 2000, 200, step=50,
                                  key="anchors_stab_rounds")
    stability = _run_on_click(
        "stability", ("anchor_stability", judge, category, both, tau, int(stab_rounds)),
        "How sure is the recommendation?",
        lambda progress: anchor_stability(counts, rounds=int(stab_rounds), tau=tau,
                                          progress=progress),
        help="Resample instructions with replacement: how often each anchor is the most "
        "informative, with 95% intervals for informativeness and tau.")
    if stability is not None:
        if stability.recommended is not None:
            st.markdown(f"**{stability.recommended}** is the most informative anchor in "
                        f"**{stability.recommended_rate:.0%}** of {stability.rounds} instruction "
                        "resamples.")
        for note in stability.notes:
            st.warning(note)
        if stability.fit_r2.has_interval:
            r2 = stability.fit_r2
            st.caption(f"R² of the line of tau on informativeness: {r2.value:.3f} "
                       f"(95% interval {r2.low:.3f}–{r2.high:.3f}, {r2.method}).")
        st.dataframe(stability.table, hide_index=True, width="stretch", column_config={
            c: st.column_config.NumberColumn(format="%.3f") for c in stability.table.columns
            if c != "anchor"})
        _ui.download_csv(stability.table, f"anchor_stability_{judge}.csv", key="dl_anchor_stab")
    if sweep.has_quadratic:
        t = sweep.table
        m2.metric(f"{tau_name} with all pairs: best anchor", f"{t['tau_quadratic'].max():.3f}")
        m3.metric(f"{tau_name} with all pairs: worst anchor", f"{t['tau_quadratic'].min():.3f}")
    st.caption(
        f"Each row takes one model as the anchor and ranks the others by their win rate against "
        f"it (wins + ties/2; the same order as a Bradley–Terry fit on those battles). "
        f"**tau_quadratic**: Kendall's {tau_name} with the all-pairs Bradley–Terry ranking on the "
        f"models other than the anchor. **tau_human**: the same with the human ranking "
        f"({sweep.human_models_matched} models matched). **position**: the anchor's rank in the "
        "all-pairs ranking (1 = strongest). **no_model_wins_share**: share of instructions on "
        "which no model beats the anchor.")
    if sweep.has_quadratic and pd.notna(sweep.quadratic_tau_human):
        st.caption(f"The all-pairs ranking itself has {tau_name} = {sweep.quadratic_tau_human:.3f} "
                   "with the human ranking.")
    st.dataframe(sweep.table, hide_index=True, width="stretch", column_config={
        "quadratic_rating": st.column_config.NumberColumn("quadratic rating", format="%.0f"),
        "tau_quadratic": st.column_config.NumberColumn(format="%.3f"),
        "tau_human": st.column_config.NumberColumn(format="%.3f"),
        "informativeness": st.column_config.NumberColumn(format="percent"),
        "no_model_wins_share": st.column_config.NumberColumn(format="percent"),
    })
    _ui.download_csv(sweep.table, f"anchors_{judge}.csv", key="dl_anchor_sweep")
    if sweep.has_quadratic:
        st.plotly_chart(inverted_u(sweep, highlight=chosen), config=CONFIG, key="anchors_u",
                        width="stretch")
        st.caption("One point per anchor (hover for its name); the star is the chosen anchor. "
                   "The paper finds an inverted U: the extremes rank worst.")

# -- 3: informativeness -----------------------------------------------------------------------
with tabs[1]:
    st.subheader("Informativeness")
    st.markdown(INFO_DEF)
    st.plotly_chart(informativeness_bars(sweep, highlight=chosen), config=CONFIG,
                    key="anchors_info_bars", width="stretch")
    st.markdown(CEILING.format(m=len(sweep.models) - 1, c=sweep.ceiling_3_level))
    if sweep.has_quadratic:
        st.plotly_chart(tau_vs_informativeness(sweep, highlight=chosen), config=CONFIG,
                        key="anchors_info_tau", width="stretch")
        if pd.notna(sweep.fit_r2):
            st.caption(f"Least-squares line of {tau_name} (with all pairs) on informativeness over "
                       f"{sweep.table['tau_quadratic'].notna().sum()} anchors: R² = "
                       f"{sweep.fit_r2:.3f}, slope {sweep.fit_slope:.3f} per unit of "
                       "informativeness (Don-Yehiya et al. 2026, Fig. 3 reports R² = 0.594 for its judge).")

# -- 4: win-rate distributions ----------------------------------------------------------------
with tabs[2]:
    st.subheader("Win-rate distributions")
    if sweep.has_quadratic:
        t = sweep.table
        picks = list(dict.fromkeys([t["anchor"].iloc[0], chosen, t["anchor"].iloc[-1]]))
    else:
        picks = [chosen]
    shown = st.multiselect("Anchors side by side", anchors, default=picks, key="anchors_hist_pick",
                           max_selections=6)
    dists = []
    try:
        dists = [_ui.memo(("anchor_wrd", judge, category, both, a),
                          lambda a=a: win_rate_distribution(counts, a)) for a in shown]
    except DesignError as exc:
        st.info(str(exc))
    if dists:
        st.plotly_chart(win_rate_histograms(dists), config=CONFIG, key="anchors_hist",
                        width="stretch")
        st.caption("For each instruction, the number of models whose verdict against the anchor "
                   "is a win (mean verdict > 0, the model's point of view; Don-Yehiya et al. 2026, §4.2).")
        for d in dists:
            st.markdown(f"- {d.sentence} On {d.no_signal:,} instructions every model got the very "
                        "same verdict (no signal even on the full scale).")
        rows = pd.concat([d.per_instruction.assign(anchor=d.anchor) for d in dists],
                         ignore_index=True)
        _ui.download_csv(rows, f"win_rate_distribution_{judge}.csv", key="dl_anchor_wrd")
    elif not shown:
        st.info("Pick at least one anchor.")

# -- 5: explorer -------------------------------------------------------------------------------
with tabs[3]:
    st.subheader(f"Anchor explorer: {chosen}")
    ranking = _ui.memo(("anchor_ranking", judge, category, both, tau, chosen),
                       lambda: anchor_ranking(counts, chosen, tau=tau))
    e1, e2, e3 = st.columns(3)
    e1.metric(f"{tau_name} with all pairs",
              "—" if pd.isna(ranking.tau_quadratic) else f"{ranking.tau_quadratic:.3f}")
    e2.metric("Informativeness",
              "—" if pd.isna(ranking.informativeness) else f"{ranking.informativeness:.1%}")
    share = ranking.cost_share
    e3.metric("Judge calls per instruction", f"{ranking.design_calls_anchor:,} vs "
              f"{ranking.design_calls_all_pairs:,}", help="Anchor design against all pairs.")
    st.caption(
        f"Against {chosen}: {ranking.calls_anchor:,} of the {ranking.calls_total:,} judge calls "
        f"in this selection. As a design, one anchor costs (M − 1) calls per instruction and "
        f"order, all pairs C(M, 2): {share:.0%} of the all-pairs cost here. **rank_shift** = "
        "all-pairs rank − anchor rank (positive: the anchor ranks the model higher).")
    st.dataframe(ranking.table, hide_index=True, width="stretch", column_config={
        "win_rate": st.column_config.NumberColumn("win rate vs anchor", format="percent"),
        "quadratic_rating": st.column_config.NumberColumn("quadratic rating", format="%.0f"),
    })
    _ui.download_csv(ranking.table, f"anchor_{chosen}_{judge}.csv", key="dl_anchor_rank")
    st.plotly_chart(rank_comparison(ranking), config=CONFIG, key="anchors_slope",
                    width="stretch")

# -- 6: pilot screening -------------------------------------------------------------------------
with tabs[4]:
    st.subheader("Pilot screening")
    st.caption("Before judging the whole benchmark, estimate every candidate anchor's "
               "informativeness on k instructions (all pairs of the pool on those few "
               "instructions), repeated R times (Don-Yehiya et al. 2026, §5.3: r > 0.86 with k = 10).")
    p1, p2, p3, p4 = st.columns(4)
    k = p1.number_input("Instructions k", 1, max(1, counts.n_instructions),
                        min(10, counts.n_instructions), key="anchors_pilot_k")
    pool = p2.number_input("Models in the pool", min(3, counts.n_models), counts.n_models,
                           counts.n_models, key="anchors_pilot_pool")
    reps = p3.number_input("Repetitions R", 1, 500, 30, key="anchors_pilot_reps")
    seed = p4.number_input("Seed", 0, 2**31 - 1, 0, key="anchors_pilot_seed")
    pilot = _run_on_click(
        "pilot", ("anchor_pilot", judge, category, both, int(k), int(pool), int(reps), int(seed)),
        "Run the pilot screening",
        lambda progress: pilot_screening(counts, k=int(k), n_models=int(pool),
                                         repetitions=int(reps), seed=int(seed), progress=progress))
    if pilot is not None:
        q1, q2, q3 = st.columns(3)
        q1.metric("Mean Pearson r with all data", f"{pilot.pearson_r:.3f}")
        q2.metric("Pilot recommends", pilot.recommended)
        q3.metric("Judge calls per pilot", f"{pilot.pilot_calls:,}")
        st.markdown("Extreme models among the three least informative: " + "; ".join(
            f"**{m}** in {rate:.0%} of repetitions" for m, rate in pilot.extremes.items()))
        st.plotly_chart(pilot_scatter(pilot), config=CONFIG, key="anchors_pilot_fig",
                        width="stretch")
        st.dataframe(pilot.table, hide_index=True, width="stretch")
        _ui.download_csv(pilot.table, f"anchor_pilot_{judge}.csv", key="dl_anchor_pilot")

# -- 7: sweeps --------------------------------------------------------------------------------
with tabs[5]:
    st.subheader("Number of instructions (Don-Yehiya et al. 2026, §5.1, Fig. 4)")
    refs = ["human", "quadratic"] if human is not None else ["quadratic"]
    w1, w2, w3 = st.columns(3)
    ref = w1.radio("Reference ranking", refs, horizontal=True, key="anchors_sweep_ref")
    sweep_reps = w2.number_input("Repetitions", 1, 200, 30, key="anchors_sweep_reps")
    sweep_seed = w3.number_input("Seed", 0, 2**31 - 1, 0, key="anchors_sweep_seed")
    highlight = st.multiselect("Anchors drawn on their own", anchors,
                               default=list(dict.fromkeys([anchors[0], chosen])),
                               key="anchors_sweep_pick", max_selections=5)
    size_result = _run_on_click(
        "sizes", ("anchor_sizes", judge, category, both, tau, hkey, ref, int(sweep_reps),
                  int(sweep_seed)),
        "Run the instruction-count sweep",
        lambda progress: sample_size_sweep(counts, repetitions=int(sweep_reps),
                                           seed=int(sweep_seed), human_ranking=human,
                                           reference=ref, tau=tau, progress=progress))
    if size_result is not None:
        st.plotly_chart(sample_size_curves(size_result, anchors=tuple(highlight)), config=CONFIG,
                        key="anchors_sizes_fig", width="stretch")
        st.caption(f"Each size draws {size_result.repetitions} instruction subsets without "
                   "replacement; every ranking is refitted on each. 'mean over anchors' averages "
                   "all anchors' tau within a draw.")
        _ui.download_csv(size_result.summary, f"anchor_size_sweep_{judge}.csv",
                         key="dl_anchor_sizes")

    st.subheader("Number of anchors (Don-Yehiya et al. 2026, App. E, Fig. 7)")
    v1, v2 = st.columns(2)
    perms = v1.number_input("Random orders", 1, 500, 40, key="anchors_count_perms")
    count_seed = v2.number_input("Seed", 0, 2**31 - 1, 0, key="anchors_count_seed")
    count_result = _run_on_click(
        "count", ("anchor_count", judge, category, both, tau, int(perms), int(count_seed)),
        "Run the anchor-count sweep",
        lambda progress: anchor_count_sweep(counts, permutations=int(perms), seed=int(count_seed),
                                            tau=tau, progress=progress))
    if count_result is not None:
        st.plotly_chart(anchor_count_curve(count_result), config=CONFIG, key="anchors_count_fig",
                        width="stretch")
        st.caption("Anchors are added in a random order; after each, Bradley–Terry is refitted on "
                   "every battle involving an anchor (the union) and compared with the all-pairs "
                   "ranking over the models that are not anchors, as in the per-anchor table "
                   "(so one anchor gives that anchor's tau; three models must remain).")
        _ui.download_csv(count_result.summary, f"anchor_count_sweep_{judge}.csv",
                         key="dl_anchor_count")

# -- 8: anchor vs judge -----------------------------------------------------------------------
with tabs[6]:
    st.subheader("Anchor effect beside judge effect (Don-Yehiya et al. 2026, §5.2, Table 3)")
    judges = store.judges()
    if len(judges) < 2:
        st.info("This table has one judge: the judge effect needs two or more judges.")

    def _all_judges(progress):
        sweeps = {}
        for n, j in enumerate(judges):
            c = _ui.counts(store, j, category, both_orders=both)
            sweeps[j] = _ui.memo(("anchor_sweep", j, category, both, tau, hkey),
                                 lambda c=c: anchor_sweep(c, human_ranking=human, tau=tau))
            progress((n + 1) / len(judges), f"judge {n + 1} of {len(judges)}")
        return anchor_vs_judge(sweeps)

    effect = None
    if len(judges) >= 2:
        effect = _run_on_click("judges", ("anchor_judges", category, both, tau, hkey),
                               "Compare every judge", _all_judges)
    if effect is not None:
        st.plotly_chart(judge_effect_bars(effect), config=CONFIG, key="anchors_judges_fig",
                        width="stretch")
        gap_h = effect.max_anchor_gap_human
        spread = effect.judge_spread
        if pd.notna(spread) and pd.notna(gap_h):
            st.markdown(f"Across judges, the all-pairs ranking's {tau_name} with humans spans "
                        f"**{spread:.3f}**; within a judge, the best and worst anchor differ by up "
                        f"to **{gap_h:.3f}** in {tau_name} with humans.")
        st.caption("Best/worst anchor: highest/lowest tau with the judge's own all-pairs ranking "
                   "(as in Table 3). gap_human = best − worst anchor's tau with humans; "
                   "human_range = max − min over all anchors.")
        st.dataframe(effect.table, hide_index=True, width="stretch")
        _ui.download_csv(effect.table, "anchor_vs_judge.csv", key="dl_anchor_judges")

# -- 9: planner -------------------------------------------------------------------------------
with tabs[7]:
    st.subheader("Planner (Don-Yehiya et al. 2026, §6, Fig. 5)")
    pilot_info = None
    if pilot is not None:
        row = pilot.table[pilot.table["anchor"] == chosen]
        pilot_info = float(row["pilot_mean"].iloc[0]) if len(row) else None
    sweep_info = sweep.table.loc[sweep.table["anchor"] == chosen, "informativeness"]
    default_info = pilot_info if pilot_info else (float(sweep_info.iloc[0]) if len(sweep_info)
                                                  else 0.5)
    if not default_info == default_info:  # NaN: no pair was judged against this anchor
        default_info = 0.5
    default_info = min(1.0, max(0.01, default_info))
    g1, g2, g3 = st.columns(3)
    n_models = g1.number_input("Models to evaluate", 2, 1000, counts.n_models, key="plan_models")
    natural = g2.checkbox("A natural anchor exists", key="plan_natural",
                          help="E.g. the method a new one is meant to improve on.")
    full = g3.checkbox("A full ranking is needed", value=True, key="plan_full")
    h1, h2, h3 = st.columns(3)
    budget = h1.number_input("Budget in judge calls (0 = no limit)", 0, 10**10, 0, step=1000,
                             key="plan_budget")
    n_inst = h2.number_input("Instructions planned (0 = as many as needed)", 0, 10**7,
                             counts.n_instructions, key="plan_inst")
    raw_orders = orders_per_pair(_ui.counts(store, judge, category))
    plan_orders = h3.radio("Orders per pair", (1, 2), index=raw_orders - 1, horizontal=True,
                           key="plan_orders", help="2 when every pair is judged in both slot "
                           "orders (the loaded table's design is the default).")
    k1, k2, k3, k4 = st.columns(4)
    info = k1.number_input(f"Informativeness of {chosen}", 0.01, 1.0, round(default_info, 3),
                           step=0.01, format="%.3f", key=f"plan_info_{chosen}",
                           help="From the pilot when it has run, else from all data.")
    decisive = decisive_rate(counts)
    direct = k2.number_input("Decisive share of direct comparisons", 0.01, 1.0,
                             round(decisive if pd.notna(decisive) and decisive > 0 else 1.0, 3),
                             step=0.01, format="%.3f", key="plan_direct",
                             help="Share of non-tie verdicts in this selection.")
    edge = k3.number_input("Edge to detect", 0.01, 0.45, 0.05, step=0.01, key="plan_edge",
                           help="+5% = the better model wins 55% of discordant samples.")
    pairs = k4.number_input("Pairs of interest", 0, 10**6, 0, key="plan_pairs")
    try:
        plan = plan_evaluation(int(n_models), natural_anchor=natural, full_ranking=full,
                               budget=int(budget) or None, n_instructions=int(n_inst) or None,
                               anchor=chosen, informativeness=float(info),
                               direct_decisive_rate=float(direct), pairs_of_interest=int(pairs) or None,
                               orders=int(plan_orders), edge=float(edge))
    except ValueError as exc:
        st.error(str(exc))
    else:
        st.success(f"Recommended design: **{plan.recommendation}**")
        for reason in plan.reasons:
            st.markdown(f"- {reason}")
        for warning in plan.warnings:
            st.warning(warning)
        st.caption(f"Sign test, one-sided, α = {plan.alpha}, power {plan.power:.0%}: "
                   f"{plan.discordant:,} discordant samples for a +{plan.edge:.0%} edge; the "
                   "total divides by the informative share (N_total = N / I, Don-Yehiya et al. 2026, §4.3).")
        st.dataframe(plan.options, hide_index=True, width="stretch")
        _ui.download_csv(plan.options, "evaluation_plan.csv", key="dl_anchor_plan")
        st.markdown("Sentence for the report:")
        st.code(plan.sentence, language=None, wrap_lines=True)
