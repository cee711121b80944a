"""AppTest: a counts table uploaded on the Data page loads like a verdict table and says what it
can show; the Verdicts page says in words that a counts table holds no single calls."""

from __future__ import annotations

import pytest

from evalcore.ingest.counts_table import SINGLE_CALLS_NOTE
from tests.conftest import new_app, open_page

pytestmark = pytest.mark.usefixtures("small_demo")

COUNTS = (
    b"judge,instruction_id,model_a,model_b,verdict,n_calls,length_a_sum,length_b_sum\n"
    b"j,1,mine-a,mine-b,1,3,300,150\nj,1,mine-b,mine-a,-1,2,100,200\nj,2,mine-a,mine-c,0,4,400,400\n"
    b"j,2,mine-b,mine-c,2,1,90,80\n"
)


@pytest.fixture(autouse=True)
def _workspace(tmp_path, monkeypatch):
    monkeypatch.setenv("VERDICTLAB_WORKSPACE", str(tmp_path / "ws.duckdb"))


def test_a_counts_table_upload_loads_and_the_verdicts_page_says_it_has_no_single_calls():
    at = open_page(timeout=90)
    at.file_uploader(key="upload").upload("counts.csv", COUNTS, "text/csv").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Models"] == "3"
    assert any("counts table" in c.value for c in at.caption)
    assert any("counted, not listed" in i.value for i in at.info)
    at.switch_page("pages/verdicts.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(i.value == SINGLE_CALLS_NOTE for i in at.info)
    assert not any(m.value.startswith("**Case") for m in at.markdown)


def test_a_verdict_table_shows_no_counts_note():
    at = new_app("pages/verdicts.py")
    at.run()
    assert not at.exception
    assert not any(i.value == SINGLE_CALLS_NOTE for i in at.info)
