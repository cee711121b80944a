"""The Data page's words: the design list, the no-verdict table, save and load messages."""

from __future__ import annotations

from datetime import UTC, datetime

import pandas as pd
import pytest

from evalcore.present import summary as show
from evalcore.store.workspace import SavedDataset
from evalcore.text import code_span

HOSTILE = "[x](https://evil.example)"


@pytest.fixture(scope="module")
def summary(demo_store):
    return demo_store.summary()


def test_design_markdown_lists_judges_as_code_and_counts_pairs(summary):
    text = show.design_markdown(summary)
    assert text.startswith("- **Design:** all pairs")
    assert f"({summary.pairs_judged} of {summary.pairs_possible} model pairs judged)" in text
    for judge in summary.judges:
        assert judge in text


def test_no_verdict_table_has_human_columns_and_percentages(summary):
    table = show.no_verdict_table(summary)
    assert list(table.columns) == ["Judge", "Calls", "Calls without a verdict", "No-verdict rate"]
    nv = summary.no_verdict
    assert table["No-verdict rate"].tolist() == [f"{100 * r:.1f}%" for r in nv["no_verdict_rate"]]
    assert (table["Calls without a verdict"] == nv["no_verdict"]).all()


def test_messages_escape_user_text():
    err = show.load_error(f"{HOSTILE}: row 3 has verdict 'A=>B'.", previous=None)
    assert err.startswith("**This file was not loaded.**")
    assert "](https" not in err.replace("\\](", "")
    assert "still loaded" not in err
    kept = show.load_error("bad", previous=HOSTILE)
    assert kept.endswith(f"The data loaded before ({code_span(HOSTILE)}) is still loaded.")

    old = SavedDataset(
        name="runs",
        file=HOSTILE,
        format="csv",
        rows=5,
        models=3,
        judges=1,
        instructions=3,
        saved_at=datetime(2026, 1, 2, 3, 4, tzinfo=UTC),
        version=1,
    )
    new = SavedDataset(
        name="runs",
        file="b.csv",
        format="csv",
        rows=6,
        models=4,
        judges=1,
        instructions=4,
        saved_at=datetime(2026, 1, 3, tzinfo=UTC),
        version=2,
        replaced=old,
    )
    text = show.saved_message(new)
    assert "version 2" in text and "replaced version 1" in text and "6 rows" in text
    assert "](https" not in text.replace("\\](", "")
    assert "replaced" not in show.saved_message(old)
    assert (
        show.version_label(old) == "version 1 ([x](https://evil.example), 5 rows, saved 2026-01-02 03:04 UTC)"
    )


def test_saved_table_renames_every_column():
    frame = pd.DataFrame(
        columns=["name", "file", "format", "rows", "models", "judges", "instructions", "saved_at", "version"]
    )
    assert all(c[0].isupper() for c in show.saved_table(frame).columns)


def test_overview_sentence_and_file_stem(summary):
    text = show.overview_sentence(summary, HOSTILE)
    assert f"{len(summary.models)} models, {summary.instructions:,} instructions" in text
    assert "](https" not in text.replace("\\](", "")
    assert show.file_stem("a b", "[x](y)") == "a_b_x_y"
    assert show.file_stem("***") == "data"


def test_workspace_note_save_name_and_listed_version():
    note = show.workspace_note("/tmp/a*b`c.duckdb")
    assert "`` /tmp/a*b`c.duckdb ``" in note and "?dataset=<name>" in note
    assert show.default_save_name(None, None) == "data"
    assert show.default_save_name(None, "my.runs.csv") == "my"
    assert show.default_save_name("kept", "other.csv") == "kept"
    listed = pd.DataFrame({"name": ["a", "b"], "version": [3, 7]})
    assert show.listed_version(listed, "b") == 7
