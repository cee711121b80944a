"""AppTest: the Data page opens on the demo, loads an upload, and refuses a bad file in words."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import open_page

#: The small copy of the demo (loading, uploading and saving: the demo's numbers are not what is checked).
pytestmark = pytest.mark.usefixtures("small_demo")

GOOD = (
    b"instruction_id,model_a,model_b,verdict\n"
    b"1,mine-a,mine-b,A>B\n1,mine-b,mine-a,B>A\n2,mine-a,mine-b,A=B\n2,mine-b,mine-c,A>>B\n"
    b"3,mine-a,mine-c,A>B\n"
)


def _app() -> AppTest:
    return open_page(timeout=90)


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


def _button(at, label):
    return next(b for b in at.button if b.label == label)


def test_save_says_what_it_replaced_refuses_a_concurrent_change_and_restores(tmp_path, monkeypatch):
    from evalcore.store.workspace import Workspace

    path = tmp_path / "ws.duckdb"
    monkeypatch.setenv("VERDICTLAB_WORKSPACE", str(path))
    at = _app()
    at.file_uploader(key="upload").upload("mine.csv", GOOD, "text/csv").run()
    at.text_input(key="save_name").set_value("runs")
    _button(at, "Save").click().run()
    assert not at.exception and any("version 1" in s.value for s in at.success)

    # a new upload replaces it: the message names the version it replaced
    other = GOOD + b"4,mine-c,mine-d,A>B\n"
    at.file_uploader(key="upload").upload("more.csv", other, "text/csv").run()
    at.text_input(key="save_name").set_value("runs")
    at.checkbox(key="save_replace").check()
    _button(at, "Save").click().run()
    assert not at.exception
    said = " ".join(s.value for s in at.success)
    assert "version 2" in said and "replaced version 1" in said and "mine.csv" in said
    assert Workspace(path).version("runs") == 2

    # another session replaces it behind this one's back: this session's save is refused
    Workspace(path).save("runs", Workspace(path).load("runs").table, replace=True)
    at.text_input(key="save_name").set_value("runs")
    _button(at, "Save").click().run()
    assert not at.exception
    assert any("changed since you opened it" in e.value for e in at.error)
    assert Workspace(path).version("runs") == 3

    # restore version 1 from the list of previous versions
    at.selectbox(key="saved_pick").set_value("runs").run()
    versions = at.selectbox(key="saved_version_pick")
    assert [o.split(" (")[0] for o in versions.options] == ["version 2", "version 1"]
    versions.select_index(1).run()
    at.button(key="saved_restore").click().run()
    assert not at.exception
    assert any("Saved as" in s.value and "version 4" in s.value for s in at.success)
    restored = Workspace(path).load("runs").table.frame
    assert len(restored) == 5  # version 1: the first upload's five rows


def test_hostile_notes_and_errors_are_text(tmp_path, monkeypatch):
    monkeypatch.setenv("VERDICTLAB_WORKSPACE", str(tmp_path / "ws.duckdb"))
    at = _app()
    bad = GOOD.replace(b"2,mine-a,mine-b,A=B", b"2,mine-a,mine-b,[x](https://evil.example)")
    at.file_uploader(key="upload").upload("[f](https://evil.example).csv", bad, "text/csv").run()
    assert not at.exception
    shown = " ".join(e.value for e in at.error)
    assert "not loaded" in shown
    assert "](https://evil" not in shown.replace("\\](", "")


def test_a_long_name_is_cut_in_tables():
    judge = "judge-" + "x" * 5000
    at = _app()
    data = f"instruction_id,model_a,model_b,verdict,judge\nq1,a,b,1,{judge}\nq2,a,b,,{judge}\n".encode()
    at.file_uploader(key="upload").upload("long.csv", data, "text/csv").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    cells = [str(v) for frame in at.dataframe for v in frame.value.to_numpy().ravel()]
    assert any(c.startswith("judge-xxx") for c in cells)
    assert max(len(c) for c in cells) <= 200  # a 5,000-character name in a cell froze the tab


def test_many_models_no_coverage_map_but_its_pairs_to_download():
    """300 models: the coverage map (models × models cells) is not drawn; a note says so and the
    download of the pairs' calls stays."""
    from evalcore.simulate.arena import arena_verdict_frame, simulate_arena

    frame = arena_verdict_frame(simulate_arena(n_battles=3000, n_models=300, seed=1))
    csv = frame[["instruction_id", "model_a", "model_b", "verdict", "judge"]].to_csv(index=False).encode()
    at = _app()
    at.file_uploader(key="upload").upload("many.csv", csv, "text/csv").run(timeout=120)
    assert not at.exception
    assert _metrics(at)["Models"] == "300"
    assert not at.get("plotly_chart")  # the coverage map is the page's only chart
    assert any("300 models is too large to draw" in i.value for i in at.info)
