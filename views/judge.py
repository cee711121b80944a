"""Judge: every judge's spec sheet side by side, then one judge section by section."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from evalcore.judge import (
    DEFINITIONS,
    best_marks,
    both_orders_summary,
    comparison_table,
    human_agreement,
    judge_sheets,
    labelled_rows,
    length_preference_curve,
    read_families,
)
from evalcore.plots.common import CONFIG
from evalcore.plots.judge import (
    compression_figure,
    coverage_figure,
    length_curve_figure,
    order_swap_figure,
    position_bias_figure,
    rank_change_figure,
    self_preference_figure,
    tie_rates_figure,
)
from views import _ui

#: The columns of the side-by-side table, with their headings.
SIDE_BY_SIDE: dict[str, str] = {
    "judge": "judge",
    "position_bias_points": "position bias (points)",
    "swap_consistency": "swap consistency",
    "flip_rate": "flip rate",
    "tie_rate": "tie rate (single order)",
    "both_orders_tie_rate": "tie rate (both orders)",
    "no_verdict_rate": "no verdict",
    "slot_bias_b": "slot bias b",
    "self_comparison_tie_rate": "self-comparison ties",
    "agreement": "agreement",
    "kappa": "κ",
    "length_coefficient": "length effect (Elo/SD)",
    "self_preference_elo": "self-preference (Elo)",
}
PERCENT = {"swap_consistency", "flip_rate", "tie_rate", "both_orders_tie_rate", "no_verdict_rate",
           "self_comparison_tie_rate", "agreement"}


def _fmt(value: object, column: str) -> str:
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "—"
    if column in PERCENT:
        return f"{value:.1%}"
    if column in ("position_bias_points", "length_coefficient", "self_preference_elo"):
        return f"{value:+.1f}"
    if column == "slot_bias_b":
        return f"{value:+.3f}"
    if column == "kappa":
        return f"{value:.3f}"
    return str(value)


def _families_input(judges: tuple[str, ...]) -> dict[str, str] | None:
    """A model/judge → family map: the demo's file, an uploaded CSV, or typed lines."""
    s = _ui.state()
    default = ""
    demo_file = _ui.DATA / "demo_families.csv"
    if s.get("demo") == _ui.DEFAULT_DEMO and demo_file.exists():
        default = demo_file.read_text()
    with st.expander("Model families (for self-preference)", expanded=False):
        st.caption("One `model,family` line per model, and one per judge whose family you know "
                   "(a judge is listed by its name in the file). The demo's families are filled "
                   "in for the demo data.")
        upload = st.file_uploader("Families CSV (model,family)", type=["csv", "txt"],
                                  key="judge_families_file")
        text = st.text_area("…or type them", value=default, height=160, key="judge_families_text")
        if upload is not None:
            text = upload.getvalue().decode("utf-8-sig", errors="replace")
    if not text.strip():
        return None
    try:
        families = read_families(text)
    except ValueError as exc:
        st.error(f"The family list cannot be read: {exc}. Write one `model,family` pair per line.")
        return None
    if not any(j in families for j in judges):
        st.info("No judge has a family in the list, so self-preference cannot be measured. Add a "
                "line `judge name,family` for each judge whose family you know.")
    return families


st.title("Judge")
store = _ui.require_data()
_ui.demo_banner()
st.caption("A judge is an instrument with a spec sheet: how much it prefers a slot, how "
           "often it contradicts itself when the answers swap places, how often it fails to "
           "answer, how well it agrees with people, and how it treats length and its own family.")

c1, c2, c3 = st.columns([2, 1, 1])
with c1:
    category = _ui.category_picker(store, key="judge_category")
with c2:
    rounds = int(st.number_input("Bootstrap rounds", min_value=0, max_value=10000, value=1000,
                                 step=100, key="judge_rounds"))
with c3:
    seed = int(st.number_input("Seed", min_value=0, value=0, step=1, key="judge_seed"))
judges = store.judges()
families = _families_input(judges)
family_key = tuple(sorted(families.items())) if families else ()

bar = st.progress(0.0, text="Measuring the judges…")


def _progress(fraction: float, text: str) -> None:
    bar.progress(min(1.0, max(0.0, fraction)), text=text)


sheets = _ui.memo(("judge_sheets", category, rounds, seed, family_key),
                  lambda: judge_sheets(store, category=category, rounds=rounds, seed=seed,
                                       families=families, progress=_progress))
bar.empty()
ok = {name: sheet for name, sheet in sheets.items() if not isinstance(sheet, str)}
for name, reason in sheets.items():
    if isinstance(reason, str):
        st.warning(f"{name}: {reason}")
if not ok:
    st.info("No judge has verdicts between two different models in this selection: there is "
            "nothing to measure. Choose another category or load another file.")
    st.stop()
table = comparison_table(sheets)

# -- the judges side by side ---------------------------------------------------------------------
st.header("The judges side by side")
shown = [c for c in SIDE_BY_SIDE if c in table.columns]
marks = best_marks(table)
display = pd.DataFrame({
    SIDE_BY_SIDE[c]: [(_fmt(v, c) + (" ★" if marks.at[i, c] else "")) for i, v in table[c].items()]
    for c in shown})
st.dataframe(display, hide_index=True, width="stretch")
for name, sheet_ in ok.items():
    for warning in sheet_.design_warnings:
        st.warning(f"{name}: {warning}")
st.caption("★ marks the best value of a column among the judges (closest to zero for position "
           "bias, slot bias, length effect and self-preference; highest for consistency, "
           "self-comparison ties, agreement and κ; lowest for flips and missing verdicts). Tie "
           "rates are not graded: how many ties a judge should give depends on the task. "
           "Intervals are in the per-judge sheet below and in the CSV.")
_ui.download_csv(table, "judge_comparison.csv", label="Download the comparison (CSV)")
with st.expander("What each column means"):
    st.table(pd.DataFrame({"column": [SIDE_BY_SIDE[c] for c in shown if c in DEFINITIONS],
                           "definition": [DEFINITIONS[c] for c in shown if c in DEFINITIONS]}))

# -- position ------------------------------------------------------------------------------------
st.header("1. Position")
ok_table = table[table["judge"].isin(list(ok))].reset_index(drop=True)
left, right = st.columns(2)
with left:
    st.plotly_chart(position_bias_figure(ok_table), width="stretch", config=CONFIG)
with right:
    st.plotly_chart(tie_rates_figure(ok_table), width="stretch", config=CONFIG)
st.caption("**Position bias**: P(slot A wins) − P(slot B wins) in points, measured on model "
           "pairs judged in both slot orders with each order weighted equally, so which model "
           "sat where cannot fake a slot preference (not reported when no pair is seen in both "
           "orders). **Swap consistency**: the share of pairs judged in both orders "
           "whose two verdicts, from the same model's point of view, name the same outcome; the "
           "**flip rate** is the rest. **Both-orders verdict**: the verdict both orders agree on, "
           "else a tie (on the 5-level scale: the same winner in both orders, with the weaker of "
           "the two margins). A judge that rarely says tie but prefers the first slot produces "
           "its ties this way. Repeated calls of one order are paired at random. Bars: 95% "
           "bootstrap intervals over instructions (Zheng et al. 2023, *Judging LLM-as-a-Judge "
           "with MT-Bench and Chatbot Arena*).")
st.info("The both-orders verdict is offered on every other page (the **Both-orders verdicts** "
        "switch). Pairs judged in one order only have no both-orders verdict and are left out "
        "when it is on.")

judge = _ui.judge_picker(store, key="judge_page")
sheet = ok.get(judge)
if sheet is None:
    st.warning(f"{judge} has no sheet in this selection: {sheets.get(judge)}")
    st.stop()
for warning in sheet.design_warnings:
    st.warning(warning)
for note in sheet.notes:
    st.info(note)
p = sheet.position
summary = _ui.memo(("both_orders_summary", judge, category),
                   lambda: both_orders_summary(_ui.counts(store, judge, category)))
m = st.columns(5)
pb = p.position_bias_points
m[0].metric("Position bias", f"{pb.value:+.1f} pts" if np.isfinite(pb.value) else "—",
            help=(f"95%: {pb.low:+.1f} to {pb.high:+.1f}, on pairs judged in both slot orders. "
                  if pb.has_interval else "Not identified: no pair was judged in both slot orders. "
                  if not np.isfinite(pb.value) else "")
            + f"Raw: slot A wins {p.slot_a_win_rate:.1%}, slot B wins {p.slot_b_win_rate:.1%} "
            f"({p.slot_gap_points:+.1f} points, which mixes position with which model sat where).")
m[1].metric("Swap consistency", _fmt(p.swap_consistency.value, "swap_consistency"),
            help=f"Flip rate {_fmt(p.flip_rate.value, 'flip_rate')}; opposite winners "
            f"{_fmt(p.reversal_rate.value, 'flip_rate')}; on {p.pairings:,} both-orders pairs.")
m[2].metric("Tie rate, single order", _fmt(p.tie_rate.value, "tie_rate"))
m[3].metric("Tie rate, both orders", _fmt(p.both_orders_tie_rate.value, "both_orders_tie_rate"))
m[4].metric("Slot balance", _fmt(p.balance.balanced_share, "agreement"),
            help=f"Share of calls in model pairs judged in both slot orders; order balance "
            f"{p.balance.order_balance:.2f} (1: every pair equally often in each order).")
st.caption(f"{summary.pairings:,} both-orders verdicts from {summary.calls:,} calls; "
           f"{summary.unpaired_calls:,} calls were judged in one order only and have none.")

# -- order swap ----------------------------------------------------------------------------------
st.header("2. Order-swap decomposition")
o = sheet.order
m = st.columns(3)
m[0].metric("Slot bias b", _fmt(o.b.value, "slot_bias_b"),
            help=f"95%: {o.b.low:+.3f} to {o.b.high:+.3f} (verdict units, −2..+2)"
            if o.b.has_interval else "verdict units, −2..+2")
selfc = sheet.self_comparison
if selfc is not None and selfc.calls:
    m[1].metric("Self-comparison ties", f"{selfc.tie_rate:.1%}",
                help=f"{selfc.calls:,} calls of a model against itself; mean verdict "
                f"{selfc.mean_verdict:+.2f}")
else:
    m[1].metric("Self-comparison ties", "—", help="No call compares a model with itself.")
m[2].metric("Model pairs in both orders", f"{o.pairs_both_orders:,}")
st.caption("With v_fwd the mean verdict when the opponent sits in slot A and "
           "v_rev when the anchor does, q = (v_fwd − v_rev)/2 is the opponents' preference over "
           "the anchor net of position and b = (v_fwd + v_rev)/2 the slot-A bias (> 0 favours "
           "slot A). Computed per model pair, pooled over instructions; weighted by calls. "
           "Self-comparison ties: where a model meets itself any verdict but a tie is position.")
if len(o.by_anchor):
    st.plotly_chart(order_swap_figure(o.by_anchor), width="stretch", config=CONFIG)
    st.dataframe(o.by_anchor, hide_index=True, width="stretch")
    _ui.download_csv(o.by_anchor, f"order_swap_{judge}.csv")
else:
    st.info("No model pair was judged in both slot orders, so q and b cannot be separated.")

# -- coverage ------------------------------------------------------------------------------------
st.header("3. Coverage")
cov = sheet.coverage
st.metric("No verdict", f"{cov.no_verdict_rate:.2%}",
          help=f"{cov.no_verdict:,} of {cov.calls:,} calls returned no verdict: counted, never "
          "imputed, left out of win rates.")
left, right = st.columns(2)
with left:
    st.plotly_chart(coverage_figure(cov.by_model, by="model"), width="stretch", config=CONFIG)
    _ui.download_csv(cov.by_model, f"coverage_by_model_{judge}.csv")
with right:
    if len(cov.by_length):
        st.plotly_chart(coverage_figure(cov.by_length, by="length"), width="stretch",
                        config=CONFIG)
        _ui.download_csv(cov.by_length, f"coverage_by_length_{judge}.csv")
    else:
        st.info("The file has no response lengths (length_a, length_b), so coverage by length "
                "cannot be shown.")
if sheet.ties:
    t = sheet.ties
    st.caption(f"Tie structure of the verdict levels: tie probability "
               f"{t['tie_probability']:.3f}, D1 {t['d1']:.2f}, D2 {t['d2']:.2f}, "
               f"{t['distinct_levels']} distinct levels. The **Tie structure** page has the rest.")

# -- agreement -----------------------------------------------------------------------------------
st.header("4. Agreement with humans")
ag = sheet.agreement
if ag is None:
    st.info("No call of this judge carries a human label (the `human` column), so agreement, κ "
            "and the compression table cannot be computed. Label a sample of pairs to get them.")
else:
    use_both = st.toggle("Compare both-orders verdicts", key="judge_agree_both",
                         help="Compare the both-orders verdict of each pair with every human "
                         "judgement the pair carries, once, instead of each call's own verdict.")
    if use_both:
        try:
            ag = _ui.memo(("agreement_both", judge, category, rounds, seed),
                          lambda: human_agreement(labelled_rows(store, judge, category=category),
                                                  both_orders=True, rounds=min(rounds, 1000),
                                                  seed=seed))
        except ValueError as exc:
            st.warning(str(exc))
            ag = sheet.agreement
    m = st.columns(5)
    m[0].metric("Agreement", f"{ag.agreement.value:.1%}",
                help=f"95%: {ag.agreement.low:.1%} to {ag.agreement.high:.1%}; {ag.n:,} "
                f"comparisons ({ag.n_no_verdict:,} labelled calls had no verdict and are left out)")
    m[1].metric("Cohen's κ", f"{ag.kappa.value:.3f}",
                help=f"95%: {ag.kappa.low:.3f} to {ag.kappa.high:.3f}")
    m[2].metric("Krippendorff's α (humans)", _fmt(ag.alpha, "kappa"),
                help=f"Nominal α among the human judgements of {ag.alpha_units:,} pairs with two "
                "or more (a label repeated on both orders of a pair counts once).")
    m[3].metric("Human ceiling, agreement", _fmt(ag.ceiling_agreement, "agreement"),
                help=f"One label against the majority of the pair's other labels, "
                f"{ag.ceiling_n:,} comparisons.")
    m[4].metric("Human ceiling, κ", _fmt(ag.ceiling_kappa, "kappa"))
    st.caption("Outcomes compared as win / tie / loss (the sign of a verdict). Agreement and κ "
               "read each call from slot A's point of view; intervals resample labelled "
               "instructions. α and the ceiling need pairs labelled by two or more people "
               "(Krippendorff 2011; Cohen 1960).")
    for note in ag.notes:
        st.info(note)
    left, right = st.columns(2)
    with left:
        st.subheader("Confusion (counts)")
        conf = ag.confusion_frame()
        st.dataframe(conf, hide_index=True, width="stretch")
        _ui.download_csv(conf, f"confusion_{judge}.csv")
        st.subheader("Compression table")
        comp = ag.compression.copy()
        show = pd.DataFrame({"humans' win rate": comp["human_rate"].map("{:.0%}".format),
                             "judge prints": comp["judge_prints"].map("{:.1%}".format),
                             "shift (points)": (np.round(100 * comp["shift"], 1) + 0.0).map("{:+.1f}".format)})
        if ag.ceiling_compression is not None:
            show["one human vs the others"] = ag.ceiling_compression["judge_prints"].map(
                "{:.1%}".format)
        st.dataframe(show, hide_index=True, width="stretch")
        _ui.download_csv(comp, f"compression_{judge}.csv")
    with right:
        st.plotly_chart(compression_figure(ag.compression, ag.ceiling_compression),
                        width="stretch", config=CONFIG)
    st.caption(f"The win rate (wins + ties/2) the judge prints when the humans' win "
               f"rate is X, from its confusion matrix (each call counted from both models' points "
               f"of view), holding the humans' tie share at this set's "
               f"{ag.human_tie_share:.1%}. A judge that agrees imperfectly pulls every rate "
               "toward 50%.")

# -- length and family ---------------------------------------------------------------------------
st.header("5. Length and family")
curve = _ui.memo(("length_curve", judge, category),
                 lambda: length_preference_curve(store, judge, category=category))
if curve.empty:
    st.info("The file has no response lengths (length_a, length_b), so the length preference and "
            "the length-controlled ranking cannot be computed.")
else:
    left, right = st.columns(2)
    with left:
        st.plotly_chart(length_curve_figure(curve), width="stretch", config=CONFIG)
        _ui.download_csv(curve, f"length_curve_{judge}.csv")
    lc = sheet.length
    with right:
        if lc is not None:
            st.plotly_chart(rank_change_figure(lc.table), width="stretch", config=CONFIG)
    st.caption("Left: each call read from the longer response's point of view; a judge with no "
               "length preference stays at 50% (Wilson 95% intervals, calls treated as "
               "independent). Right: Bradley–Terry with and without a length term, as the arena's "
               "style control does (Li et al. 2024; Dubois et al. 2024): logit P(A wins) = θ_A − θ_B + γ·z, z the "
               "normalised length difference (len_a − len_b)/(len_a + len_b) in standard "
               "deviations.")
    if lc is not None:
        m = st.columns(2)
        g = lc.gamma_elo
        m[0].metric("Length effect γ", f"{g.value:+.1f} Elo per SD",
                    help=f"95%: {g.low:+.1f} to {g.high:+.1f} (Wald, cluster-robust by instruction)")
        m[1].metric("Models that change rank", f"{lc.rank_changes}")
        st.dataframe(lc.table, hide_index=True, width="stretch")
        _ui.download_csv(lc.table, f"length_controlled_{judge}.csv")

st.subheader("Self-preference")
spref = [s.self_preference for s in ok.values() if s.self_preference]
if len(judges) < 2:
    st.info("Self-preference compares a judge with the other judges; this data has one judge.")
elif not families:
    st.info("Give the model families above (and each judge's family) to measure self-preference.")
elif not spref:
    st.info("No judge with a known family could be measured: each needs at least one model of "
            "its family and one of another family judged by every judge.")
else:
    frame = pd.DataFrame(spref)
    st.plotly_chart(self_preference_figure(frame), width="stretch", config=CONFIG)
    st.dataframe(frame, hide_index=True, width="stretch")
    _ui.download_csv(frame, "self_preference.csv")
    st.caption("δ: how much more the judge rates models of its own family than the other judges "
               "do, from a regression of its Bradley–Terry strengths on the other judges' (with "
               "its own scale) plus a family indicator; Elo points, 95% bootstrap over "
               "instructions. The other judges are those without a family among the models when "
               "there are any (Panickssery et al. 2024: a judge favours its own generations).")

# -- the sheet -----------------------------------------------------------------------------------
st.header(f"The sheet of {judge}")
sheet_table = sheet.table()
st.dataframe(sheet_table, hide_index=True, width="stretch")
_ui.download_csv(sheet_table, f"judge_sheet_{judge}.csv", label="Download this sheet (CSV)")
