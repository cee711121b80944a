"""Power: how many samples separate two models, and what the loaded data can separate
(Don-Yehiya et al. 2026, §4.3, Table 2, App. C and Listing 1)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

from evalcore import power as pw
from evalcore.anchors import anchor_informativeness
from evalcore.errors import DesignError
from evalcore.plots.common import CONFIG
from evalcore.plots.power import (
    detectable_edges_figure,
    difference_figure,
    power_curve_figure,
    sample_size_figure,
)
from evalcore.ranking import leaderboard
from views import _ui

EDGE_CHOICES = (0.01, 0.02, 0.03, 0.05, 0.075, 0.10, 0.15, 0.20, 0.25, 0.30)


def _edge_label(e: float) -> str:
    return f"+{e * 100:g}%"


st.title("Power")
st.caption("How many samples does it take to tell two models apart, and which models can the "
           "loaded data tell apart? Don-Yehiya et al. 2026 (§4.3) finds that common benchmark sizes cannot "
           "separate close models.")
store = _ui.require_data()
_ui.demo_banner()

c1, c2 = st.columns(2)
with c1:
    judge = _ui.judge_picker(store, key="pw_judge")
with c2:
    category = _ui.category_picker(store, key="pw_category")
counts = _ui.counts(store, judge, category)
if counts.n_models < 2:
    st.warning("This selection has verdicts for fewer than two models, so there is nothing to "
               "compare. Choose another judge or category.")
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
with s1:
    alpha = st.number_input("α (significance level)", min_value=0.001, max_value=0.5, value=0.05,
                            step=0.01, format="%.3f", key="pw_alpha")
with s2:
    target = st.number_input("Power", min_value=0.5, max_value=0.99, value=0.80, step=0.05,
                             format="%.2f", key="pw_power")
with s3:
    two_sided = st.toggle("Two-sided", key="pw_two_sided",
                          help="The paper's Table 2 is one-sided: H0 is 'B is as good as A or better'.")
with s4:
    exact = st.toggle("Exact binomial", key="pw_exact",
                      help="The paper used the normal approximation (617 for +5%); the exact "
                      "binomial test needs 620. Applies to the sign-test sample sizes and "
                      "detectable edges.")
method = "exact" if exact else "normal"
anchor = st.selectbox(
    "Anchor", ranked, index=ranked.index(default_anchor), key="pw_anchor",
    help="The model every other model is compared against (Don-Yehiya et al. 2026). Its informativeness I is "
    "the share of (instruction, model pair) cases whose verdicts against it differ.")

# -- 1. the sign test ------------------------------------------------------------------------
st.header("1 · Sign-test sample size (Don-Yehiya et al. 2026, §4.3, Table 2)")
st.markdown(
    "An **edge** of +5% means the better model wins 55% of the **discordant** samples, the "
    "samples on which the two models' verdicts (against the anchor) differ: P(A beats B | "
    "discordant) = 0.55. The sign test ignores the rest, so the **total** is ⌈discordant / I⌉, "
    "with **I** the informativeness (Don-Yehiya et al. 2026, §4.3)."
)
edges = st.multiselect("Edges to detect", EDGE_CHOICES, default=[0.05, 0.10], format_func=_edge_label,
                       key="pw_edges")
source = st.radio("Informativeness I", ("From the loaded data, for the anchor", "Type it in"),
                  horizontal=True, key="pw_info_source")
informativeness: float | None
if source.startswith("From"):
    try:
        informativeness = _ui.memo(("pw_info", judge, category, anchor),
                                   lambda: anchor_informativeness(counts, anchor))
    except DesignError:  # one battle per prompt: said in the sentence below
        informativeness = None
    if informativeness is None or not math.isfinite(informativeness) or informativeness <= 0:
        st.info(f"No instruction has two models judged against **{anchor}**, so its "
                "informativeness cannot be measured here. Pick another anchor or type a value in.")
        informativeness = None
    else:
        st.caption(f"I = **{informativeness:.3f}** for anchor {anchor}: the share of (instruction, "
                   "model pair) cases whose verdicts against the anchor differ, on the judge's "
                   "full scale (Don-Yehiya et al. 2026, §4.3; computed by the Anchors module).")
else:
    informativeness = st.number_input("I (0–1)", min_value=0.01, max_value=1.0, value=0.45,
                                      step=0.01, format="%.3f", key="pw_info_typed",
                                      help="0.45 is o3's informativeness in the paper; 0.54 the mean.")
if not edges:
    st.info("Pick at least one edge above.")
else:
    try:
        plan = pw.sample_size_plan(sorted(edges), alpha=float(alpha), power=float(target),
                                   informativeness=informativeness, two_sided=two_sided,
                                   method=method)
    except ValueError as exc:
        st.error(f"{exc}")
    else:
        table = plan.table.assign(edge_label=[_edge_label(e) for e in plan.table["edge"]])
        st.dataframe(
            table[["edge_label", "win_probability", "discordant", "total"]], hide_index=True,
            width="stretch",
            column_config={
                "edge_label": st.column_config.TextColumn("edge"),
                "win_probability": st.column_config.NumberColumn(
                    "P(A wins | discordant)", format="percent"),
                "discordant": st.column_config.NumberColumn("discordant samples", format="%d"),
                "total": st.column_config.NumberColumn(
                    "total samples" + (f" (I = {informativeness:.3f})" if informativeness else ""),
                    format="%d"),
            },
        )
        st.caption(
            f"{'Two' if two_sided else 'One'}-sided sign test, α = {alpha:g}, power {target:.0%}, "
            + ("normal approximation n = ⌈((z₁₋α·0.5 + z_power·√(p(1−p))) / (p − 0.5))²⌉ "
               "(the paper's method)." if method == "normal" else
               "exact binomial test (smallest n reaching the power; the paper used the normal "
               "approximation).")
        )
        for note in plan.notes:
            st.caption("ℹ️ " + note)
        _ui.download_csv(plan.table, "sign_test_sample_sizes.csv", key="dl_pw_plan")
        if len(plan.table) > 1:
            st.plotly_chart(sample_size_figure(plan.table, informativeness=informativeness),
                            config=CONFIG, key="pw_plan_fig")

with st.expander("The paper's Table 2, reproduced"):
    paper = pw.paper_table()
    paper["edge"] = paper["edge"].map(_edge_label)
    paper = paper.rename(columns={"exact_binomial": "exact binomial", **{
        f"total_I_{v:.2f} ({k})": f"total, I = {v:.2f} ({k})" for k, v in pw.PAPER_INFORMATIVENESS.items()}})
    st.dataframe(paper, hide_index=True, width="stretch")
    st.caption("One-sided, α = 0.05, power 0.8, normal approximation: 617 discordant samples "
               "for +5% → 1,372 total for o3 (I = 0.45) and 1,143 at the mean I = 0.54, as "
               "published. The paper's summary says +10% needs **341** total at a 55% tie rate; "
               "153 / 0.45 is exactly 340, and 341 only appears when 1 − 0.55 is computed in "
               "floating point (0.44999999999999996). We print 340.")
    _ui.download_csv(paper, "seed000_table2.csv", key="dl_pw_paper")

# -- 2. Wilcoxon power by simulation ----------------------------------------------------------
st.header("2 · Wilcoxon signed-rank power by simulation (Don-Yehiya et al. 2026, App. C, Listing 1)")
st.markdown(
    "**Verdict differences.** For models A and B judged against the same anchor on the same "
    "instruction i, **d_i = v(i, A) − v(i, B)**, where v(i, m) is m's verdict against the anchor "
    "read from m's point of view on the judge's scale (−2…+2); when m met the anchor more than "
    "once on i (both orders, repeats) v is the mean of those verdicts. The sign test only sees "
    "the sign of d; the Wilcoxon signed-rank test also uses its size. Each simulation picks one "
    "empirical distribution of d from the loaded data, draws N values with replacement and runs "
    "the one-sided Wilcoxon test with `zero_method=\"pratt\"` (the sign test runs on the same "
    "draws). Power = share of simulations that reject."
)
mode = st.radio("Distributions", ("Every pair whose edge is in a window (as Listing 1)",
                                  "One model pair"), horizontal=True, key="pw_mode")
dists_all = None
try:
    dists_all = _ui.memo(("pw_dists", judge, category),
                         lambda: pw.difference_distributions(counts))
except ValueError as exc:
    st.info(str(exc))

if dists_all is not None:
    g1, g2, g3, g4 = st.columns(4)
    if mode.startswith("Every"):
        with g1:
            edge_low = st.number_input("Edge window from", min_value=0.0, max_value=0.49, value=0.05,
                                       step=0.01, format="%.2f", key="pw_window",
                                       help="Distributions with edge in [from, from + 1%), as Listing 1.")
        with g2:
            pool = st.selectbox("Anchors", ["All anchors", *ranked], key="pw_pool_anchor")
        chosen = dists_all if pool == "All anchors" else dists_all.select(
            (dists_all.table["anchor"] == pool).to_numpy(dtype=bool))
        chosen = chosen.with_edge(edge_low, edge_low + 0.01)
        nominal = float(edge_low) if edge_low > 0 else None
        label = f"edge in [{edge_low:.0%}, {edge_low + 0.01:.0%})"
    else:
        others = [m for m in ranked if m != anchor]
        with g1:
            model_a = st.selectbox("Model A", others, index=0, key="pw_model_a")
        with g2:
            rest = [m for m in others if m != model_a]
            model_b = st.selectbox("Model B", rest, index=0 if rest else None, key="pw_model_b")
        chosen = dists_all.pair(model_a, model_b, anchor=anchor) if model_b else dists_all.select(
            np.zeros(len(dists_all), dtype=bool))
        nominal = None
        label = f"{model_a} vs {model_b} against {anchor}"
    with g3:
        max_n = st.number_input("Largest N", min_value=50, max_value=20000, value=2000, step=250,
                                key="pw_max_n")
    with g4:
        seed = st.number_input("Seed", min_value=0, value=0, step=1, key="pw_seed")
    sims = st.select_slider("Simulations per N", (500, 1000, 2000, 5000, 10000), value=2000,
                            key="pw_sims")
    grid = np.unique(np.linspace(max(10, int(max_n) // 20), int(max_n), 20).round().astype(int))

    if len(chosen) == 0:
        edges_seen = dists_all.table["edge"].dropna()
        if mode.startswith("Every"):
            st.info(f"No model pair has an edge in [{edge_low:.0%}, {edge_low + 0.01:.0%}) in this "
                    f"selection (edges here range from {edges_seen.min():.1%} to "
                    f"{edges_seen.max():.1%}). Move the window.")
        else:
            st.info(f"{model_a} and {model_b} were never both judged against {anchor} on the same "
                    "instruction: there is no distribution of differences. Pick another pair or anchor.")
    elif chosen.table["edge"].isna().all():
        st.info("Every instruction gives d = 0 for this pair (their verdicts against the anchor "
                "never differ): no test can separate them with this judge and anchor.")
    else:
        bar = st.progress(0.0, text="Simulating…")

        def _progress(fraction: float, text: str) -> None:
            bar.progress(min(1.0, fraction), text=text)

        key = ("pw_curve", judge, category, mode, label, pool if mode.startswith("Every") else anchor,
               float(alpha), float(target), two_sided, int(max_n), int(sims), int(seed))
        curve = _ui.memo(key, lambda: pw.wilcoxon_power(
            chosen, grid, alpha=float(alpha), target_power=float(target), two_sided=two_sided,
            simulations=int(sims), seed=int(seed), edge=nominal, progress=_progress))
        bar.empty()
        m1, m2, m3, m4 = st.columns(4)
        m1.metric("Distributions", f"{curve.n_distributions:,}",
                  help="(anchor, model pair) distributions of d drawn from")
        m2.metric("Mean informativeness", f"{curve.mean_informativeness:.1%}",
                  help="Share of instructions with d ≠ 0 (discordant), averaged over the distributions")
        m3.metric("N for Wilcoxon", f"{curve.wilcoxon_n:,}" if curve.wilcoxon_n else f"> {grid[-1]:,}",
                  help="Smallest N of the grid where the simulated Wilcoxon test reaches the target power")
        m4.metric("N for sign test", f"{curve.sign_n:,}" if curve.sign_n else f"> {grid[-1]:,}",
                  help="Smallest N of the grid where the simulated sign test reaches the target power"
                  + (f"; Table 2's formula gives {curve.planned_sign_total:,} total samples at this "
                     "mean informativeness" if curve.planned_sign_total else ""))
        st.plotly_chart(power_curve_figure(curve), config=CONFIG, key="pw_curve_fig")
        st.caption(
            f"{label}; mean edge {curve.mean_edge:.1%}. N is the total number of instructions "
            f"(ties included). Error bars: ±1.96 Monte Carlo standard errors over {curve.simulations:,} "
            f"simulations, seed {curve.seed}. Dashed: the sign test's normal approximation at N × I "
            "discordant samples. The smallest N is read off this grid of N values. The paper "
            "reports 930 (Wilcoxon) against 1,143 (sign test) for +5% at I = 0.54 on its data."
        )
        _ui.download_csv(curve.frame, "power_curve.csv", key="dl_pw_curve")
        st.plotly_chart(difference_figure(chosen, title=(
            "Distribution of d (pooled over the chosen distributions)" if len(chosen) > 1
            else f"Distribution of d: {chosen.table['model_a'].iloc[0]} − "
                 f"{chosen.table['model_b'].iloc[0]} against {anchor}")), config=CONFIG,
            key="pw_diff_fig")
        with st.expander("The distributions used"):
            st.dataframe(chosen.table, hide_index=True, width="stretch",
                         column_config={"informativeness": st.column_config.NumberColumn(format="percent"),
                                        "edge": st.column_config.NumberColumn(format="percent")})
            st.caption("Each row is oriented so that model_a is the one with the edge; edge = "
                       "P(d > 0 | d ≠ 0) − 50%; informativeness = share of instructions with d ≠ 0.")
            _ui.download_csv(chosen.table, "difference_distributions.csv", key="dl_pw_dists")

# -- 3. what this dataset can detect ---------------------------------------------------------
st.header("3 · What this dataset can detect")
modes = ("Against the anchor", "Head-to-head")
default_mode = 0 if summary.design == "anchor-only" else 1
compare = st.radio("Compare adjacent models", modes, index=default_mode, horizontal=True,
                   key="pw_compare",
                   help="Against the anchor: d = v(A) − v(B) as above. Head-to-head: the verdict "
                   "of A against B itself (needs the pair judged directly).")
use_anchor = anchor if compare == modes[0] else None
info_for_headline = informativeness if use_anchor is not None else None
try:
    result = _ui.memo(("pw_detect", judge, category, use_anchor, info_for_headline, float(alpha),
                       float(target), two_sided, method),
                      lambda: pw.detectable_edges(counts, board, anchor=use_anchor,
                                                  informativeness=info_for_headline,
                                                  alpha=float(alpha), power=float(target),
                                                  two_sided=two_sided, method=method))
except ValueError as exc:
    st.error(str(exc))
    st.stop()

h1, h2, h3, h4 = st.columns(4)
h1.metric("Instructions N", f"{result.n_instructions:,}")
h2.metric("Informativeness I", f"{result.informativeness:.1%}" if math.isfinite(result.informativeness) else "–",
          help=f"Source: {result.informativeness_source}")
h3.metric("Detectable edge at N × I", f"+{result.detectable_edge:.1%}" if math.isfinite(result.detectable_edge) else "none",
          help="The smallest edge the sign test detects at α and power with N × I discordant samples.")
h4.metric("Adjacent pairs resolved", f"{result.n_resolved} of {result.n_pairs}")
if result.top_pair_resolved is not None:
    top = result.table.iloc[0]
    if result.top_pair_resolved:
        st.success(f"The data separate the top two models: {top['upper']} beats {top['lower']} on "
                   f"{top['upper_wins']} of {top['discordant']} discordant instructions (p = {top['p_value']:.2g}).")
    else:
        need = top["instructions_needed"]
        st.warning(f"The data do not separate the top two models ({top['upper']} and {top['lower']}): "
                   f"observed edge {top['observed_edge']:+.1%} on {top['discordant']} discordant "
                   "instructions, p = " + (f"{top['p_value']:.2g}" if pd.notna(top["p_value"]) else "–")
                   + (f"; about {need:,.0f} instructions would be needed at this edge and informativeness."
                      if pd.notna(need) else "."))
for note in result.notes:
    st.info(note)
if result.n_pairs:
    st.plotly_chart(detectable_edges_figure(result), config=CONFIG, key="pw_detect_fig")
    st.dataframe(
        result.table, hide_index=True, width="stretch",
        column_config={
            "rating_gap": st.column_config.NumberColumn("rating gap (Elo)", format="%.0f"),
            "informativeness": st.column_config.NumberColumn(format="percent"),
            "observed_edge": st.column_config.NumberColumn("observed edge", format="percent"),
            "detectable_edge": st.column_config.NumberColumn("detectable edge", format="percent"),
            "p_value": st.column_config.NumberColumn("p (sign test)", format="%.2g"),
            "instructions_needed": st.column_config.NumberColumn("instructions needed", format="%d"),
        },
    )
    _ui.download_csv(result.table, f"detectable_edges_{judge}.csv", key="dl_pw_detect")
st.caption(
    "Adjacent pairs follow the Bradley–Terry leaderboard order (all battles). For each pair, "
    "discordant = instructions with d ≠ 0; observed edge = P(upper wins | discordant) − 50%; "
    f"detectable edge = the smallest edge a {'two' if two_sided else 'one'}-sided sign test detects "
    f"at α = {alpha:g} and power {target:.0%} with that many discordant samples; resolved = the "
    "exact binomial sign test rejects 'the lower model is as good or better' at α. Instructions "
    "needed = Table 2's total for the observed edge at the pair's own informativeness. The order "
    "comes from the same data, so p-values of close pairs are somewhat optimistic."
)
