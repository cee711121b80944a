"""Every analysis gives the same result from the counts table as from the raw verdict table:
the counts keep everything the analyses read (per-call lengths and features come back as the
row's mean, exact when a row's calls share their answers, as in every shape here).

A counts table has no file order: its calls come back grouped. The few bootstraps that resample
single calls in file order (the judge's agreement with humans) therefore draw other resamples
from a shuffled raw file; the raw table here is written in the counts table's order, so that
every number, intervals included, must match exactly."""

from __future__ import annotations

import json

import pytest

import evalcore
from evalcore.calibration import calibrate
from evalcore.errors import EvalcoreError
from evalcore.ingest.counts_table import KEYS
from evalcore.ties import verdict_tie_structure
from tests.counts.shapes import shapes, write

SHAPES = shapes()
#: what the summary says about the file itself (its name, its format), not about the calls
_ABOUT_THE_FILE = {"name", "format", "file", "duplicate_rows"}


def _rounded(value):
    """Floats to 10 significant digits: the calls are stored in another order, so sums may
    differ in the last bit; anything wider is a real difference."""
    if isinstance(value, float):
        return float(f"{value:.10g}")
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_rounded(v) for v in value]
    return value


def _plain(result) -> str:
    data = result.as_dict() if hasattr(result, "as_dict") else result
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if k not in _ABOUT_THE_FILE}
    return json.dumps(_rounded(json.loads(json.dumps(data, default=str))), sort_keys=True)


def in_key_order(frame, path) -> None:
    """Write ``frame`` with its calls in the counts table's order (its grouping columns, as the
    store reads them: levels, not labels), keeping each call's own values."""
    write(frame, path)
    store = evalcore.load(path).store
    keys = ", ".join(KEYS)
    order = store.con.execute(f'SELECT "row" FROM verdicts ORDER BY {keys}, "row"').fetchnumpy()["row"]
    write(frame.iloc[order - 1], path)


def outcome(run) -> tuple[str, str]:
    """("ok", the result as JSON) or ("refused", the message): a refusal must be the same too."""
    try:
        return "ok", _plain(run())
    except EvalcoreError as exc:
        return "refused", str(exc)


def analyses(ds: evalcore.Dataset, judge: str, controls: list[str]) -> dict:
    candidate = ds.models[0]
    return {
        "summary": lambda: ds.summary(),
        "leaderboard": lambda: ds.leaderboard(judge=judge, rounds=100),
        "style control": lambda: ds.style_control(judge=judge, controls=controls),
        "fragility": lambda: ds.fragility(judge=judge),
        "anchors": lambda: ds.anchors(judge=judge),
        "ties": lambda: verdict_tie_structure(ds.counts(judge=judge), rounds=100),
        "judge sheet": lambda: ds.judge_sheet(judge=judge, rounds=100),
        "prediction-powered ratings": lambda: ds.ppi(judge=judge),
        "certification": lambda: ds.certify(judge=judge),
        "calibration": lambda: calibrate(ds.store, judge=judge, candidate=candidate, rounds=100),
    }


@pytest.mark.parametrize("name", ["all pairs, both orders", "arena", "anchor-only", "labels such as A>>B"])
def test_every_analysis_is_the_same_from_the_counts_table(name, tmp_path):
    raw_path = tmp_path / "raw.parquet"
    in_key_order(SHAPES[name], raw_path)
    raw = evalcore.load(raw_path)
    counts_path = tmp_path / "counts.parquet"
    raw.store.counts_table().to_parquet(counts_path, index=False)
    counted = evalcore.load(counts_path)
    controls = ["length", "bold"] if name == "arena" else ["length"]
    ran = 0
    for judge in raw.judges:
        want, got = analyses(raw, judge, controls), analyses(counted, judge, controls)
        for analysis in want:
            expected = outcome(want[analysis])
            assert outcome(got[analysis]) == expected, f"{name}, {judge}: {analysis}"
            ran += expected[0] == "ok"
    assert ran >= 6  # most analyses ran, not only refusals compared
