"""Judge: every judge's spec sheet side by side, then one judge section by section."""

from __future__ import annotations

import streamlit as st

import evalcore.judge as ej
from evalcore.judge import presentation as show
from evalcore.judge.presentation import EXPLAIN
from evalcore.plots import judge as plots
from evalcore.plots.common import CONFIG
from views import _ui


def _tiles(metrics: list[show.Metric]) -> None:
    for column, m in zip(st.columns(max(len(metrics), 1)), metrics, strict=False):
        column.metric(m.label, m.value, help=m.help or None)  # numbers only, no user text


def _chart(figure, data=None, name: str = "", where=None) -> None:
    """A figure in the column ``where``, with its data as a CSV download named ``name``."""
    with where or st.container():
        st.plotly_chart(figure, width="stretch", config=CONFIG)
        if name:
            _ui.download_csv(data, name)


def _table(frame, data=None, name: str = "") -> None:
    """A display table, and the numbers behind it (``data``) as a CSV download named ``name``."""
    st.dataframe(frame, hide_index=True, width="stretch")
    if name:
        _ui.download_csv(frame if data is None else data, name)


st.title("Judge")
store = _ui.require_data()
_ui.demo_banner()
st.caption(EXPLAIN["intro"])
c1, c2, c3 = st.columns([2, 1, 1])
with c1:
    category = _ui.category_picker(store, key="judge_category")
rounds = int(c2.number_input("Bootstrap rounds", min_value=0, max_value=10000, value=1000,
                             step=100, key="judge_rounds"))
seed = int(c3.number_input("Seed", min_value=0, value=0, step=1, key="judge_seed"))
judges = store.judges()
demo_file = _ui.DATA / "demo_families.csv"
with st.expander("Model families (for self-preference)", expanded=False):
    st.caption(EXPLAIN["families"])
    upload = st.file_uploader("Families CSV (model,family)", type=["csv", "txt"],
                              key="judge_families_file")
    demo = _ui.state().get("demo") == _ui.DEFAULT_DEMO and demo_file.exists()
    typed = st.text_area("…or type them", value=demo_file.read_text() if demo else "", height=160,
                         key="judge_families_text")
family = show.family_list(typed if upload is None else
                          upload.getvalue().decode("utf-8-sig", errors="replace"), judges)
if family.problem:
    _ui.error(family.problem, lead="**The family list cannot be read.** Write one "
              "`model,family` pair per line:")
elif family.note:
    st.info(family.note)

bar = st.progress(0.0, text="Measuring the judges…")
sheets = _ui.memo(("judge_sheets", category, rounds, seed, family.key), lambda: ej.judge_sheets(
    store, category=category, rounds=rounds, seed=seed, families=family.families,
    progress=lambda f, text: bar.progress(min(1.0, max(0.0, f)), text=_ui.md(text))))
bar.empty()
ok = {name: sheet for name, sheet in sheets.items() if not isinstance(sheet, str)}
for warning in show.judge_warnings(sheets):
    _ui.warning(warning)
if not ok:
    st.info(EXPLAIN["no_judge"])
    st.stop()

st.header("The judges side by side")
_table(show.side_by_side(sheets))
st.caption(EXPLAIN["marks"])
_ui.download_csv(ej.comparison_table(sheets), "judge_comparison.csv",
                 label="Download the comparison (CSV)")
with st.expander("What each column means"):
    st.table(show.column_definitions())

st.header("1. Position")
left, right = st.columns(2)
_chart(plots.position_bias_figure(ej.comparison_table(ok)), where=left)
_chart(plots.tie_rates_figure(ej.comparison_table(ok)), where=right)
st.caption(EXPLAIN["position"])
st.info(EXPLAIN["both_orders"])
judge = _ui.judge_picker(store, key="judge_page")
sheet = ok.get(judge)
if sheet is None:
    _ui.warning(f"{judge} has no sheet in this selection: {sheets.get(judge)}")
    st.stop()
for warning in sheet.design_warnings:
    _ui.warning(warning)
for note in sheet.notes:
    _ui.info(note)
summary = _ui.memo(("both_orders_summary", judge, category),
                   lambda: ej.both_orders_summary(_ui.counts(store, judge, category)))
_tiles(show.position_metrics(sheet))
st.caption(show.both_orders_sentence(summary))

st.header("2. Order-swap decomposition")
_tiles(show.order_metrics(sheet))
st.caption(EXPLAIN["order"])
by_anchor = sheet.order.by_anchor
if len(by_anchor):
    _chart(plots.order_swap_figure(by_anchor))
    _table(show.order_swap_display(by_anchor), by_anchor, f"order_swap_{judge}.csv")
else:
    st.info(EXPLAIN["no_order"])

st.header("3. Coverage")
cov = sheet.coverage
_tiles([show.coverage_metric(sheet)])
left, right = st.columns(2)
_chart(plots.coverage_figure(cov.by_model, by="model"), cov.by_model,
       f"coverage_by_model_{judge}.csv", where=left)
if len(cov.by_length):
    _chart(plots.coverage_figure(cov.by_length, by="length"), cov.by_length,
           f"coverage_by_length_{judge}.csv", where=right)
else:
    right.info(EXPLAIN["no_lengths"])
st.caption(show.tie_structure_sentence(sheet))

st.header("4. Agreement with humans")
ag = sheet.agreement
if ag is None:
    st.info(EXPLAIN["no_labels"])
else:
    if st.toggle("Compare both-orders verdicts", key="judge_agree_both",
                 help="Compare the both-orders verdict of each pair with every human judgement "
                 "the pair carries, once, instead of each call's own verdict."):
        try:
            ag = _ui.memo(("agreement_both", judge, category, rounds, seed), lambda: (
                ej.human_agreement(ej.labelled_rows(store, judge, category=category),
                                   both_orders=True, rounds=min(rounds, 1000), seed=seed)))
        except ValueError as exc:
            _ui.warning(exc)
    _tiles(show.agreement_metrics(ag))
    st.caption(EXPLAIN["agreement"])
    for note in ag.notes:
        _ui.info(note)
    left, right = st.columns(2)
    with left:
        st.subheader("Confusion (counts)")
        _table(ag.confusion_frame(), name=f"confusion_{judge}.csv")
        st.subheader("Compression table")
        _table(show.compression_display(ag), ag.compression, f"compression_{judge}.csv")
    _chart(plots.compression_figure(ag.compression, ag.ceiling_compression), where=right)
    st.caption(show.compression_sentence(ag))

st.header("5. Length and family")
curve = _ui.memo(("length_curve", judge, category),
                 lambda: ej.length_preference_curve(store, judge, category=category))
lc = sheet.length
if curve.empty:
    st.info(EXPLAIN["no_length_curve"])
else:
    left, right = st.columns(2)
    _chart(plots.length_curve_figure(curve), curve, f"length_curve_{judge}.csv", where=left)
    if lc is not None:
        _chart(plots.rank_change_figure(lc.table), where=right)
    st.caption(EXPLAIN["length"])
    if lc is not None:
        _tiles(show.length_metrics(sheet))
        _table(show.length_display(lc.table), lc.table, f"length_controlled_{judge}.csv")

st.subheader("Self-preference")
problem = show.self_preference_problem(sheets, n_judges=len(judges),
                                       has_families=bool(family.families))
if problem:
    st.info(problem)
else:
    frame = show.self_preference_rows(sheets)
    _chart(plots.self_preference_figure(frame))
    _table(show.self_preference_display(frame), frame, "self_preference.csv")
    st.caption(EXPLAIN["self_preference"])

st.header(f"The sheet of {_ui.md(judge)}")
_table(show.sheet_display(sheet))
_ui.download_csv(sheet.table(), f"judge_sheet_{judge}.csv", label="Download this sheet (CSV)")
