"""Issue 25, item 2: the printed gate on a slot-confounded pair. With the candidate always in slot
A and a judge that prefers slot A, an equally strong candidate used to pass superiority with no
design warning and a note calling the gate "conservative"; now the gate says it cannot separate
slot preference from strength (undetermined, exit 1), in the library, ``gate`` and ``--json``."""

from __future__ import annotations

import json

import pytest

from evalcore.calibration import calibrate, noninferiority_gate, superiority_gate
from evalcore.cli import main
from evalcore.store.store import VerdictStore
from tests.honest_sim import confounded_gate_errors, confounded_table


@pytest.fixture(scope="module")
def confounded():
    store = VerdictStore.from_frame(confounded_table(0))
    cal = calibrate(store, judge="judge", candidate="sim-cedar", baseline="sim-birch", rounds=50)
    store.close()
    return cal


def test_the_printed_gate_is_undetermined_on_a_one_order_pair(confounded):
    cal = confounded
    # the design inflates the printed rate of an equal candidate well past 50%
    assert cal.printed > 0.6 and cal.printed_low > 0.5
    assert cal.counts.slot_calls == (300, 0) and cal.counts.slot_order_balance == 0.0
    assert any("cannot separate the judge's slot preference" in w for w in cal.design_warnings)
    for gate in (superiority_gate(cal), noninferiority_gate(cal, margin=0.05)):
        assert not gate.passed and not gate.determined and gate.verdict == "UNDETERMINED"
        assert "cannot separate the judge's slot preference from the models' strengths" in gate.explanation
        assert "conservative" not in gate.warning and gate.warning == ""
        assert gate.as_dict()["determined"] is False


def test_a_balanced_pair_keeps_its_gate():
    store = VerdictStore.from_frame(confounded_table(0, both_orders=True))
    cal = calibrate(store, judge="judge", candidate="sim-cedar", baseline="sim-birch", rounds=50)
    store.close()
    gate = superiority_gate(cal)
    assert gate.determined and cal.counts.slot_order_balance == 1.0
    assert "conservative" in gate.warning
    assert not any("slot preference" in w for w in cal.design_warnings)


def test_gate_command_exits_1_and_says_why(tmp_path, capsys):
    path = tmp_path / "confounded.csv"
    confounded_table(0).drop(columns=["row"]).to_csv(path, index=False)
    args = ["gate", str(path), "--judge", "judge", "--candidate", "sim-cedar", "--baseline", "sim-birch"]
    assert main(args) == 1
    out = capsys.readouterr().out
    assert out.startswith("UNDETERMINED — ")  # the verdict leads the output
    assert "conservative" not in out
    assert "cannot separate the judge's slot preference" in out
    assert main([*args, "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["determined"] is False and result["passed"] is False
    assert result["verdict"] == "UNDETERMINED"
    assert any("slot A in 300 of its 300 calls" in w for w in result["design_warnings"])


@pytest.mark.slow  # 200 confounded tables and 200 balanced ones
def test_the_gate_error_rate_on_confounded_tables():
    """Known truth: the candidate is exactly as strong as the baseline, so every pass is an error.
    Before: the printed superiority gate passed on all 200 confounded tables (mean printed rate
    69%). After: it passes on none (each is undetermined), while on 200 tables with both slot
    orders it keeps its verdict and errs on at most the 2.5% a one-sided 95% bound allows."""
    confounded = confounded_gate_errors(200, n_instructions=100)
    assert confounded["passed"] == 0.0 and confounded["undetermined"] == 1.0
    balanced = confounded_gate_errors(200, both_orders=True, n_instructions=100)
    assert balanced["undetermined"] == 0.0 and balanced["passed"] <= 0.05
