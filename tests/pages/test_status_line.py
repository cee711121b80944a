"""The status line at the top of a page's first draw ("Ranking the models…") goes once the page
is drawn, also when the page ends early (``ui.stop``: Streamlit sends nothing a page writes once
it has stopped, so a line taken down after ``st.stop`` stayed under the page's last section)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import open_page
from ui.status import DOING

pytestmark = pytest.mark.usefixtures("small_demo")

ROWS = b"instruction_id,model_a,model_b,verdict\n" + b"".join(
    f"{q},m{a},m{b},{v}\n".encode()
    for q in range(30)
    for a, b, v in ((1, 2, "A>B"), (2, 3, "A=B"), (3, 1, "B>A"))
)


def _status(at: AppTest) -> list[str]:
    return [i.value for i in at.info if i.value in DOING.values()]


def test_a_page_that_ends_early_takes_its_status_line_down(tmp_path, monkeypatch):
    (tmp_path / "mine.csv").write_bytes(ROWS)
    monkeypatch.setenv("VERDICTLAB_DATA_DIR", str(tmp_path))
    at = open_page()
    at.button(key="data_folder_load").click().run()
    at.switch_page("pages/ties.py").run()  # no pointwise table for a visitor's table: it stops
    assert not at.exception
    assert any("No pointwise score table" in i.value for i in at.info)  # it did end early
    assert _status(at) == []
    at.run()  # a rerun keeps the drawn page, with no status line either
    assert _status(at) == []


def test_a_page_drawn_to_its_end_takes_its_status_line_down():
    at = open_page("pages/ties.py")
    assert _status(at) == []
