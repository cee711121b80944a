"""A mixed human-label layout (issue 25, item 5) in every face: the judge sheet, ``judge --json``,
the report and the Judge page say in words why α and the human ceiling are not shown."""

from __future__ import annotations

import html
import json

import numpy as np
import pytest

from evalcore.cli import main
from evalcore.judge import judge_sheet
from evalcore.judge.agreement import MIXED_LAYOUT_NOTE
from evalcore.store.store import VerdictStore
from tests.judge.test_agreement import _mixed_layout


@pytest.fixture(scope="module")
def mixed_csv(tmp_path_factory):
    rows, _, _ = _mixed_layout(seed=5)
    path = tmp_path_factory.mktemp("mixed") / "mixed.csv"
    rows.to_csv(path, index=False)
    return path, rows


def test_the_sheet_lists_it_as_a_design_warning(mixed_csv):
    _, rows = mixed_csv
    store = VerdictStore.from_frame(rows)
    sheet = judge_sheet(store, "judge", rounds=50)
    store.close()
    assert MIXED_LAYOUT_NOTE in sheet.design_warnings
    assert np.isnan(sheet.agreement.alpha) and np.isnan(sheet.agreement.ceiling_agreement)


def test_judge_json_withholds_alpha_and_says_why(mixed_csv, capsys):
    path, _ = mixed_csv
    assert main(["judge", str(path), "--json", "--bootstrap", "50"]) == 0
    out = json.loads(capsys.readouterr().out)
    text = json.dumps(out)
    assert "mixes layouts" in text
    assert "0.9" not in json.dumps(out.get("human_alpha"))


def test_the_report_says_why(mixed_csv):
    from evalcore.findings import run_analyses
    from evalcore.report import build_report

    _, rows = mixed_csv
    store = VerdictStore.from_frame(rows)
    document = build_report(run_analyses(store, rounds=50))
    store.close()
    assert html.escape(MIXED_LAYOUT_NOTE) in document


@pytest.mark.app
@pytest.mark.usefixtures("small_demo")  # replaced by an upload at once
def test_the_judge_page_says_why(mixed_csv):
    from tests.conftest import open_page, open_tab

    path, _ = mixed_csv
    at = open_page()
    at.file_uploader(key="upload").upload("mixed.csv", path.read_bytes(), "text/csv").run()
    at.switch_page("pages/judge.py").run()
    assert not at.exception
    shown = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "mixes layouts" in shown
    labels = {m.label: m.value for m in open_tab(at, "judge_tab", "Agreement with humans").metric}
    from evalcore import quantities as q

    assert labels.get(q.name("human_alpha"), "—") == "—"
