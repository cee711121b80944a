"""The Power page's section "Stop judging now": the anytime-valid confidence sequence over the
verdicts judged so far (evalcore.power.monitor), drawn with its stopping point."""

from __future__ import annotations

from functools import partial

import streamlit as st

import ui as _ui
from evalcore.errors import EvalcoreError
from evalcore.plots.monitor import monitor_figure
from evalcore.power.monitor import monitor_leader, monitor_pair
from evalcore.present import monitor as mv


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
    try:
        result = _ui.memo(key, compute)
    except EvalcoreError as exc:
        _ui.info(exc)
        return
    (st.success if result.decided else st.warning)(_ui.md(result.sentence()))
    _ui.tiles(mv.tiles(result))
    _ui.chart(monitor_figure(result), key="pw_monitor_fig")
    _ui.caption(mv.caption(result))
    for note in result.notes:
        _ui.caption(note)
    _ui.download_csv(result.curve, "confidence_sequence.csv", key="dl_pw_monitor")
