"""AppTest: the Data page opens on the demo, loads an upload, and refuses a bad file in words."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT

GOOD = (b"instruction_id,model_a,model_b,verdict\n"
        b"1,mine-a,mine-b,A>B\n1,mine-b,mine-a,B>A\n2,mine-a,mine-b,A=B\n2,mine-b,mine-c,A>>B\n"
        b"3,mine-a,mine-c,A>B\n")


def _app() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.run()
    assert not at.exception
    return at


def _metrics(at):
    return {m.label: m.value for m in at.metric}


def test_opens_on_the_demo_and_says_it_is_simulated():
    at = _app()
    assert _metrics(at)["Models"] == "20"
    assert any("simulated" in c.value for c in at.caption)
    assert any("Recognised as" in c.value for c in at.caption)


def test_upload_loads_a_new_table():
    at = _app()
    at.file_uploader(key="upload").upload("mine.csv", GOOD, "text/csv").run()
    assert not at.exception
    assert _metrics(at)["Models"] == "3"
    assert any("mine.csv" in s.value for s in at.subheader)


def test_bad_upload_is_refused_and_keeps_the_previous_data():
    at = _app()
    bad = GOOD.replace(b"2,mine-a,mine-b,A=B", b"2,mine-a,mine-b,A=>B")
    at.file_uploader(key="upload").upload("typo.csv", bad, "text/csv").run()
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert "not loaded" in errors and "typo.csv" in errors and "row 3" in errors and "A=>B" in errors
    assert "still loaded" in errors
    assert _metrics(at)["Models"] == "20"  # the demo is still there


def test_switching_to_the_anchor_only_demo():
    at = _app()
    at.selectbox(key="demo_choice").select_index(1).run()
    at.button(key="load_demo").click().run()
    assert not at.exception
    assert any("anchor-only" in md.value for md in at.markdown)


def test_a_file_from_the_servers_data_folder(tmp_path, monkeypatch):
    (tmp_path / "big.csv").write_bytes(GOOD)
    (tmp_path / "secret").mkdir()
    monkeypatch.setenv("VERDICTLAB_DATA_DIR", str(tmp_path))
    at = _app()
    pick = at.selectbox(key="data_folder_pick")
    assert list(pick.options) == ["big.csv"]
    at.button(key="data_folder_load").click().run()
    assert not at.exception
    assert _metrics(at)["Models"] == "3"
    assert str(tmp_path) not in " ".join(m.value for m in at.markdown)


def test_no_data_folder_no_picker(monkeypatch):
    monkeypatch.delenv("VERDICTLAB_DATA_DIR", raising=False)
    at = _app()
    assert not [s for s in at.selectbox if s.key == "data_folder_pick"]
