"""Issue 25 ("Honest numbers II"), items 1, 2, 3 and 6 on the pages: an undefeated model's
one-sided bound, the printed gate on a slot-confounded pair, a model that only ever sits in one
slot, and tiny tables, each shown in words."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.conftest import new_app, open_tab
from tests.honest_sim import REFERENCE, confounded_table, one_slot_table

pytestmark = pytest.mark.usefixtures("small_demo")  # each test replaces the demo with an upload


def _upload(frame: pd.DataFrame, page: str):
    at = new_app()
    at.run()
    at.file_uploader(key="upload").upload("t.csv", frame.to_csv(index=False).encode(), "text/csv").run()
    assert not at.exception
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _text(at) -> str:
    parts = [m.value for m in at.markdown] + [w.value for w in at.warning] + [e.value for e in at.error]
    parts += [i.value for i in at.info] + [s.value for s in at.success] + [c.value for c in at.caption]
    return "\n".join(str(p) for p in parts).replace("\\", "")


def _metrics(at) -> dict[str, str]:
    return {m.label: str(m.value).replace("\\", "") for m in at.metric}


def test_overview_and_leaderboard_leave_the_one_slot_reference_out():
    frame = one_slot_table(0).drop(columns=["row"])
    at = _upload(frame, "pages/overview.py")
    assert _metrics(at)["Leader"] == "sim-alder"
    assert f"{REFERENCE} (always in slot B) is rated higher but not comparable" in _text(at)
    at.switch_page("pages/leaderboard.py").run()
    assert not at.exception
    shown = at.dataframe[0].value.set_index("Model")
    assert shown.loc[REFERENCE, "Comparable"] == "no: only ever in slot B"
    assert shown.drop(index=REFERENCE)["Comparable"].eq("yes").all()
    assert "Not comparable with the others" in _text(at)


def _rows(n_instructions: int) -> pd.DataFrame:
    models = ["sim-a", "sim-b", "sim-c"]
    rng = np.random.default_rng(1)
    rows = [
        {"instruction_id": f"q{i}", "model_a": a, "model_b": b, "verdict": int(rng.choice([-1, 0, 1]))}
        for i in range(n_instructions)
        for a in models
        for b in models
        if a != b
    ]
    return pd.DataFrame(rows)


def test_overview_with_one_instruction_refuses_interval_and_rank_range_in_words():
    at = _upload(_rows(1), "pages/overview.py")
    text = _text(at)
    assert "With a single instruction there is nothing to resample, so no interval and no rank range" in text
    assert "—–—" not in text and "rank range is 1–1" not in text


def test_overview_with_two_instructions_is_caution_in_the_sentence():
    at = _upload(_rows(2), "pages/overview.py")
    assert "Only 2 instructions, so read this as rough" in _text(at)


def test_leaderboard_page_states_the_undefeated_bound():
    rows = [
        {
            "instruction_id": f"q{i}",
            "model_a": a,
            "model_b": b,
            "verdict": 1 if a == "sim-top" else (-1 if b == "sim-top" else (1 if (i + len(a)) % 2 else -1)),
        }
        for i in range(12)
        for a in ("sim-top", "sim-b", "sim-c", "sim-d")
        for b in ("sim-top", "sim-b", "sim-c", "sim-d")
        if a != b
    ]
    at = _upload(pd.DataFrame(rows), "pages/leaderboard.py")
    shown = at.dataframe[0].value.set_index("Model")
    interval = shown.loc["sim-top", "95% interval"]
    assert interval.startswith("at least ")
    assert (
        # 12 instructions: the interval also carries the few-instructions caveat, "(rough: …)"
        int(interval.removeprefix("at least ").split(" (")[0].replace(",", ""))
        < int(shown.loc["sim-top", "Rating"].replace(",", "")) - 100
    )
    assert "has a 2.5% chance" in _text(at)


def test_calibration_gate_on_a_confounded_pair_is_undetermined():
    frame = confounded_table(0).drop(columns=["row"])
    at = _upload(frame, "pages/calibration.py")
    at.selectbox(key="cal_candidate").set_value("sim-cedar").run()
    at.selectbox(key="cal_baseline").set_value("sim-birch").run()
    assert not at.exception
    text = _text(at)
    open_tab(at, "cal_tab", "Gates")
    assert "**UNDETERMINED**" in "\n".join(w.value for w in at.warning)
    assert "cannot separate the judge's slot preference from the models' strengths" in text
    assert "is conservative" not in text
