"""Saved datasets in the workspace DuckDB file (issue 6, item 4)."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
from evalcore.store.store import VerdictStore, read_verdicts
from evalcore.store.workspace import (
    ENV_VAR,
    KEEP_VERSIONS,
    MAX_NAME,
    UnknownDataset,
    Workspace,
    WorkspaceError,
    check_name,
    default_path,
)
from tests.conftest import ROOT, new_app

#: The small copy of the demo (saving and linking datasets: the demo's numbers are not what is checked).
pytestmark = pytest.mark.usefixtures("small_demo")


def _sim(seed: int, names: tuple[str, ...] | None = None, n_instructions: int = 12):
    spec = SimulationSpec(
        n_models=len(names) if names else 4,
        n_instructions=n_instructions,
        model_names=names,
        judges=(JudgeSpec("judge-x", no_verdict_rate=0.1), JudgeSpec("judge-y")),
        categories=("code", "chat"),
        human_fraction=0.3,
        seed=seed,
    )
    return simulate(spec)


def _upload(seed: int, names: tuple[str, ...] | None = None, file: str = "upload.csv"):
    """A table as an upload produces it: written to CSV, read back and validated."""
    sim = _sim(seed, names)
    return read_verdicts(sim.verdicts.to_csv(index=False).encode(), name=file), sim


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path / "ws" / "verdictlab.duckdb")


def test_round_trip_keeps_the_canonical_frame_and_the_human_ranking(ws: Workspace) -> None:
    table, sim = _upload(1, file="mine.csv")
    saved = ws.save("first", table, human_ranking=sim.human_ranking)
    assert (saved.name, saved.file, saved.rows) == ("first", "mine.csv", len(sim.verdicts))
    assert (saved.models, saved.judges, saved.instructions) == (4, 2, 12)
    back = ws.load("first")
    pd.testing.assert_frame_equal(back.table.frame, table.frame)
    assert back.table.file == "mine.csv" and back.table.format == table.format
    assert back.table.report == table.report  # same no-verdict count, duplicates, …
    expected = sim.human_ranking.sort_values("score", ascending=False).reset_index(drop=True)
    assert list(back.human_ranking["model"]) == list(expected["model"])
    np.testing.assert_allclose(back.human_ranking["score"], expected["score"])
    # the loaded table aggregates exactly like the upload
    a, b = VerdictStore(), VerdictStore()
    a.load(table)
    b.load(back.table)
    np.testing.assert_array_equal(a.counts(judge="judge-x").counts, b.counts(judge="judge-x").counts)
    assert ws.names() == ("first",)
    assert ws.table()["rows"].tolist() == [len(sim.verdicts)]


def test_saved_dataset_is_there_after_a_restart(tmp_path: Path) -> None:
    """A separate Python process saves; after it has exited, this process reads the data."""
    path = tmp_path / "restart.duckdb"
    code = (
        "import sys\n"
        "from evalcore.simulate.tables import SimulationSpec, simulate\n"
        "from evalcore.store.workspace import Workspace\n"
        "sim = simulate(SimulationSpec(n_models=3, n_instructions=7, model_names=('p','q','r'),"
        " seed=5))\n"
        "Workspace(sys.argv[1]).save('from another process', sim.verdicts, file='x.csv')\n"
    )
    subprocess.run([sys.executable, "-c", code, str(path)], cwd=ROOT, check=True, timeout=60)
    loaded = Workspace(path).load("from another process")
    expected = simulate(
        SimulationSpec(n_models=3, n_instructions=7, model_names=("p", "q", "r"), seed=5)
    ).verdicts
    assert len(loaded.table.frame) == len(expected) == 7 * 3 * 2
    assert list(loaded.table.frame["verdict"]) == list(expected["verdict"])
    assert loaded.table.file == "x.csv"


@pytest.mark.parametrize(
    "name",
    [
        "x'; DROP TABLE datasets; --",
        'Robert"); DELETE FROM dataset_rows; --',
        "naïve — ünïcödé 数据",
        "  spaces around  ",
    ],
)
def test_names_with_sql_and_quotes_are_bound_parameters(ws: Workspace, name: str) -> None:
    other, _ = _upload(2, ("o1", "o2", "o3"))
    ws.save("other", other)
    table, _ = _upload(3, ("n1", "n2", "n3"))
    ws.save(name, table)
    assert set(ws.names()) == {"other", name.strip()}
    assert set(ws.load(name.strip()).table.frame["model_a"]) <= {"n1", "n2", "n3"}
    assert set(ws.load("other").table.frame["model_a"]) <= {"o1", "o2", "o3"}
    assert ws.delete(name.strip())
    assert ws.names() == ("other",)


def test_taken_name_needs_replace(ws: Workspace) -> None:
    first, _ = _upload(4, ("a1", "a2", "a3"))
    second, _ = _upload(5, ("b1", "b2", "b3", "b4"))
    ws.save("same", first)
    with pytest.raises(WorkspaceError, match="already saved"):
        ws.save("same", second)
    assert set(ws.load("same").table.frame["model_b"]) <= {"a1", "a2", "a3"}
    saved = ws.save("same", second, replace=True)
    assert saved.models == 4
    assert set(ws.load("same").table.frame["model_b"]) <= {"b1", "b2", "b3", "b4"}
    assert ws.names() == ("same",)


def test_failed_save_leaves_nothing_half_written(ws: Workspace) -> None:
    good, _ = _upload(6, ("g1", "g2", "g3"))
    ws.save("kept", good)
    bad = good.frame.copy()
    bad["verdict"] = bad["verdict"].astype("float64").fillna(0).astype("int64")
    bad.loc[bad.index[-1], "verdict"] = 500  # does not fit the TINYINT column: the insert fails
    with pytest.raises(duckdb.Error):
        ws.save("kept", bad, replace=True)  # the old rows were deleted inside the transaction …
    pd.testing.assert_frame_equal(ws.load("kept").table.frame, good.frame)  # … and are back
    with pytest.raises(duckdb.Error):
        ws.save("new", bad)
    assert ws.names() == ("kept",)
    with duckdb.connect(str(ws.path)) as con:
        assert con.execute("SELECT count(*) FROM dataset_rows WHERE dataset = 'new'").fetchone() == (0,)
        assert con.execute("SELECT count(*) FROM dataset_rows").fetchone() == (len(good.frame),)


def test_concurrent_saves_from_many_sessions_lose_nothing(tmp_path: Path) -> None:
    """Eight threads (as eight browser sessions) save at once, each through its own Workspace."""
    path = tmp_path / "shared.duckdb"
    n = 8
    tables = [_upload(10 + k, tuple(f"t{k}-m{j}" for j in range(3)))[0] for k in range(n)]
    barrier = threading.Barrier(n)
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            barrier.wait(timeout=30)
            Workspace(path).save(f"session {k}", tables[k])
            Workspace(path).list()
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors
    ws = Workspace(path)
    assert ws.names() == tuple(f"session {k}" for k in range(n))
    for k in range(n):
        frame = ws.load(f"session {k}").table.frame
        pd.testing.assert_frame_equal(frame, tables[k].frame)


def test_concurrent_saves_of_one_name_keep_exactly_one(tmp_path: Path) -> None:
    path = tmp_path / "race.duckdb"
    n = 6
    tables = [_upload(30 + k, tuple(f"r{k}-m{j}" for j in range(3)))[0] for k in range(n)]
    barrier = threading.Barrier(n)
    outcomes: list[str] = []

    def work(k: int) -> None:
        barrier.wait(timeout=30)
        try:
            Workspace(path).save("contested", tables[k])
            outcomes.append(f"saved {k}")
        except WorkspaceError:
            outcomes.append("refused")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    winners = [o for o in outcomes if o.startswith("saved")]
    assert len(outcomes) == n and len(winners) == 1
    k = int(winners[0].split()[1])
    pd.testing.assert_frame_equal(Workspace(path).load("contested").table.frame, tables[k].frame)


def test_delete(ws: Workspace) -> None:
    a, _ = _upload(7, ("d1", "d2", "d3"))
    b, sim = _upload(8, ("e1", "e2", "e3"))
    ws.save("a", a)
    ws.save("b", b, human_ranking=sim.human_ranking)
    assert ws.delete("b") is True
    assert ws.delete("b") is False
    assert ws.names() == ("a",) and not ws.exists("b") and ws.exists("a")
    with pytest.raises(UnknownDataset, match="no saved dataset"):
        ws.load("b")
    pd.testing.assert_frame_equal(ws.load("a").table.frame, a.frame)
    # A deletion is restorable: the deleted version is in the history with its ranking.
    (old,) = ws.history("b")
    restored = ws.restore("b", old.version)
    assert restored.version == old.version + 1 and ws.names() == ("a", "b")
    pd.testing.assert_frame_equal(ws.load("b").table.frame, b.frame)
    assert ws.load("b").human_ranking is not None


def test_replacing_keeps_the_previous_version_and_says_what_it_replaced(ws: Workspace) -> None:
    first, _ = _upload(40, ("v1-a", "v1-b", "v1-c"), file="first.csv")
    second, _ = _upload(41, ("v2-a", "v2-b", "v2-c"), file="second.csv")
    one = ws.save("shared", first)
    assert (one.version, one.replaced) == (1, None)
    two = ws.save("shared", second, replace=True)
    assert two.version == 2 and two.replaced is not None
    assert (two.replaced.version, two.replaced.file, two.replaced.rows) == (1, "first.csv", one.rows)
    assert "version 1 (first.csv" in two.replaced.describe()
    pd.testing.assert_frame_equal(ws.load("shared").table.frame, second.frame)
    pd.testing.assert_frame_equal(ws.load("shared", version=1).table.frame, first.frame)
    assert [d.version for d in ws.history("shared")] == [1]
    back = ws.restore("shared", 1)
    assert back.version == 3 and back.replaced.version == 2
    pd.testing.assert_frame_equal(ws.load("shared").table.frame, first.frame)
    assert [d.version for d in ws.history("shared")] == [2, 1]
    assert ws.table()["version"].tolist() == [3]


def test_history_keeps_a_bounded_number_of_versions(ws: Workspace) -> None:
    from evalcore.store.workspace import KEEP_VERSIONS

    table, _ = _upload(42)
    for _ in range(KEEP_VERSIONS + 3):
        ws.save("busy", table, replace=True)
    kept = [d.version for d in ws.history("busy")]
    assert kept == list(range(KEEP_VERSIONS + 2, 2, -1))
    with duckdb.connect(str(ws.path)) as con:
        versions = {
            r[0]
            for r in con.execute(
                "SELECT DISTINCT version FROM dataset_rows WHERE dataset = 'busy'"
            ).fetchall()
        }
    assert versions == set(kept) | {KEEP_VERSIONS + 3}  # the pruned versions' rows are gone


def test_a_concurrent_replace_is_detected_not_overwritten(ws: Workspace) -> None:
    from evalcore.store.workspace import ConcurrentChange

    base, _ = _upload(43, ("c-a", "c-b", "c-c"))
    mine, _ = _upload(44, ("m-a", "m-b", "m-c"))
    theirs, _ = _upload(45, ("t-a", "t-b", "t-c"))
    seen = ws.save("team", base).version  # both people open version 1
    ws.save("team", theirs, replace=True, expected_version=seen)  # the other person saves first
    with pytest.raises(ConcurrentChange, match="changed since you opened it.*version 2"):
        ws.save("team", mine, replace=True, expected_version=seen)
    pd.testing.assert_frame_equal(ws.load("team").table.frame, theirs.frame)  # not overwritten
    with pytest.raises(ConcurrentChange):
        ws.delete("team", expected_version=seen)
    assert ws.version("team") == 2


def test_concurrent_replaces_from_threads_lose_no_version(tmp_path: Path) -> None:
    path = tmp_path / "race.duckdb"
    n = 5
    tables = [_upload(50 + k, tuple(f"x{k}-m{j}" for j in range(3)))[0] for k in range(n)]
    Workspace(path).save("contested", tables[0])
    barrier = threading.Barrier(n)
    results: list = []

    def work(k: int) -> None:
        barrier.wait(timeout=30)
        results.append(Workspace(path).save("contested", tables[k], replace=True))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    ws = Workspace(path)
    # every save got its own version and names the one it replaced: nothing vanished silently
    assert sorted(r.version for r in results) == list(range(2, n + 2))
    assert sorted(r.replaced.version for r in results) == list(range(1, n + 1))
    assert [d.version for d in ws.history("contested")] == list(range(n, 0, -1))


def test_demo_names_are_reserved(ws: Workspace) -> None:
    table, _ = _upload(46)
    for name in ("demo-all-pairs", "demo-anchor", "DEMO-mine"):
        with pytest.raises(WorkspaceError, match="reserved for the built-in demos"):
            ws.save(name, table)
    assert ws.save("my demo-all-pairs", table).version == 1  # only the prefix is reserved


def test_workspace_errors_are_evalcore_errors() -> None:
    from evalcore.errors import EvalcoreError

    assert issubclass(WorkspaceError, EvalcoreError) and issubclass(WorkspaceError, ValueError)


def test_check_name() -> None:
    assert check_name("  my run  ") == "my run"
    for bad in ("", "   ", None, "a\nb", "tab\there", "x" * (MAX_NAME + 1)):
        with pytest.raises(WorkspaceError):
            check_name(bad)
    assert check_name("x" * MAX_NAME) == "x" * MAX_NAME


def test_empty_table_is_refused(ws: Workspace) -> None:
    table, _ = _upload(9)
    with pytest.raises(WorkspaceError, match="nothing to save"):
        ws.save("empty", table.frame.iloc[:0])
    assert ws.names() == ()


def test_default_path_and_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert default_path() == Path("workspace") / "verdictlab.duckdb"
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "elsewhere.duckdb"))
    assert default_path() == tmp_path / "elsewhere.duckdb"
    assert Workspace().path == tmp_path / "elsewhere.duckdb"


def test_reading_where_nothing_is_saved_creates_no_file(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "not" / "yet" / "ws.duckdb")
    assert (ws.names(), ws.list(), ws.history("x"), ws.version("x"), ws.exists("x")) == (
        (),
        (),
        (),
        None,
        False,
    )
    assert ws.table().empty
    assert not (tmp_path / "not").exists()  # the Data page lists on every run: no file, no folder
    table, _ = _upload(9)
    ws.save("first", table)
    assert ws.names() == ("first",)


def test_unopenable_workspace_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    with pytest.raises(WorkspaceError, match="cannot be opened"):
        Workspace(blocker / "ws.duckdb").names()

    def locked(self: Path) -> bool:  # a folder on the way that cannot be looked into (not as root)
        raise PermissionError(13, "Permission denied")

    with monkeypatch.context() as m:
        m.setattr(Path, "exists", locked)
        with pytest.raises(WorkspaceError, match="cannot be opened.*Permission denied"):
            Workspace(tmp_path / "locked" / "ws.duckdb").list()
    not_duckdb = tmp_path / "garbage.duckdb"
    not_duckdb.write_bytes(b"this is not a DuckDB database file" * 200)
    with pytest.raises(WorkspaceError, match="cannot be opened"):
        Workspace(not_duckdb).list()


# -- the Data page's "Saved datasets" section and shareable links (AppTest, no browser) --------

APP = str(ROOT / "app.py")


def _app(**params: str):

    at = new_app(timeout=90)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def _button(at, label: str):
    return next(b for b in at.button if b.label == label)


@pytest.mark.app
def test_page_saves_loads_and_deletes_through_the_ui(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = tmp_path / "ui.duckdb"
    monkeypatch.setenv(ENV_VAR, str(path))
    sim = _sim(40, ("ui-a", "ui-b", "ui-c"))
    at = _app()
    assert not at.exception
    at.file_uploader(key="upload").upload(
        "mine.csv", sim.verdicts.to_csv(index=False).encode(), "text/csv"
    ).run()
    assert not at.exception
    assert "dataset" not in at.query_params  # an upload is not in the URL until it is saved
    name = "run 1'; DROP TABLE datasets; --"
    at.text_input(key="save_name").set_value(name)
    _button(at, "Save").click().run()
    assert not at.exception and not at.error
    assert Workspace(path).names() == (name,)
    assert at.query_params["dataset"] == name
    assert any("Saved as" in s.value for s in at.success)

    # a saved name that is taken is refused in words and nothing changes
    _button(at, "Save").click().run()
    assert any("already saved" in e.value for e in at.error)

    # a fresh session opened with the link loads the saved dataset through the upload path
    link = _app(dataset=name, judge="judge-y")
    assert not link.exception and not link.warning
    assert link.session_state["vl"]["saved"] == name
    assert link.session_state["vl"]["source"] == "mine.csv"
    assert any(h.value == "Loaded: ` mine.csv `" for h in link.subheader)
    link.switch_page("pages/leaderboard.py").run()
    assert not link.exception
    assert link.selectbox(key="judge_select").value == "judge-y"
    assert link.query_params["judge"] == "judge-y" and link.query_params["dataset"] == name

    # delete through the UI: needs the confirmation
    at.selectbox(key="saved_pick").set_value(name).run()
    assert _button(at, "Delete").disabled
    at.checkbox(key="saved_confirm").check().run()
    _button(at, "Delete").click().run()
    assert not at.exception
    assert Workspace(path).names() == ()
    assert Workspace(path).history(name) == ()  # every version goes: the page cannot restore it


@pytest.mark.app
def test_link_to_a_demo_judge_and_category(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "unused.duckdb"))
    at = _app(dataset="demo-anchor")
    assert not at.exception
    assert at.session_state["vl"]["demo"].startswith("Demo: anchor-only")
    at = _app(dataset="demo-all-pairs", judge="sim-judge-tie-happy", category="math")
    at.switch_page("pages/leaderboard.py").run()
    assert not at.exception
    assert at.selectbox(key="category_select").value == "math"
    assert at.query_params["category"] == "math"
    judges = at.selectbox(key="judge_select").options
    assert "sim-judge-tie-happy" in judges
    assert at.selectbox(key="judge_select").value == "sim-judge-tie-happy"
    # changing the judge writes it back into the URL
    other = next(j for j in judges if j != "sim-judge-tie-happy")
    at.selectbox(key="judge_select").set_value(other).run()
    assert at.query_params["judge"] == other
    at.selectbox(key="category_select").set_value("All categories").run()
    assert "category" not in at.query_params


@pytest.mark.app
def test_link_to_an_unknown_dataset_says_so_and_shows_the_demo(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "empty.duckdb"))
    at = _app(dataset="no such dataset")
    assert not at.exception
    assert any("` no such dataset `" in w.value and "nor a saved dataset" in w.value for w in at.warning)
    assert at.session_state["vl"]["demo"]
    assert at.query_params["dataset"] == "demo-all-pairs"


def test_a_second_process_holding_the_file_is_a_clear_error(tmp_path: Path) -> None:
    """DuckDB allows one writing process per file: the workspace says so in words, not a trace."""
    path = tmp_path / "held.duckdb"
    table, _ = _upload(12)
    Workspace(path).save("before", table)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, duckdb; con = duckdb.connect(sys.argv[1]); "
            "print('ready', flush=True); sys.stdin.readline()",
            str(path),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(WorkspaceError, match="no other program has it open"):
            Workspace(path).names()
    finally:
        holder.communicate("\n", timeout=30)
    assert Workspace(path).names() == ("before",)  # usable again once the other process is gone


def test_user_text_helpers_for_markdown() -> None:
    """Dataset names and link text reach st.markdown as code or escaped, never as markup."""
    from ui import code_span, escape_markdown

    assert code_span("plain") == "` plain `"
    assert code_span("a`b") == "`` a`b ``"  # the fence is longer than any backtick run inside
    assert code_span("``x`") == "``` ``x` ```"
    escaped = escape_markdown("[click](http://x.y) *bold* _em_ `code` $x$ :smile: --")
    # The characters that start a link, emphasis, code or maths are escaped; URLs and
    # :shortcodes: are split by an invisible word joiner (U+2060); the rest stays as typed.
    assert escaped == (
        "\\[click\\](http:\u2060//x.y) \\*bold\\* \\_em\\_ \\`code\\` \\$x\\$ :\u2060smile: \\--"
    )


@pytest.mark.app
def test_anchor_and_leaderboard_settings_live_in_the_link() -> None:
    """?anchor=… picks the anchor; ?rounds=…&seed=… set the leaderboard's bootstrap."""

    at = new_app()
    at.query_params["anchor"] = "sim-elm"
    at.query_params["rounds"] = "200"
    at.query_params["seed"] = "7"
    at.run()
    at.switch_page("pages/anchors.py").run()
    assert not at.exception
    assert at.selectbox(key="anchors_chosen").value == "sim-elm"
    at.switch_page("pages/leaderboard.py").run()
    assert not at.exception
    assert at.number_input(key="lb_rounds").value == 200 and at.number_input(key="lb_seed").value == 7
    assert any("200 bootstrap rounds" in c.value for c in at.caption)


@pytest.mark.app
def test_a_session_whose_store_was_released_gets_its_data_back(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Streamlit releases a session's store (closing its DuckDB) when the browser goes away; a
    session that comes back reloads its demo or saved dataset instead of showing an empty or
    closed store."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv(ENV_VAR, str(tmp_path / "ws.duckdb"))

    def script():
        import streamlit as st

        import ui as _ui

        if st.session_state.pop("drop", False):
            _ui.session_store.clear()  # what Streamlit does when the session disconnects
        store = _ui.ensure_data()
        st.write(f"{store.name}: {len(store.models())} models")
        st.write(f"loads: {_ui.state()['version']}")

    at = AppTest.from_function(script, default_timeout=60)
    at.query_params["dataset"] = "demo-anchor"
    at.run()
    assert not at.exception
    before = at.markdown[-2].value
    assert before.startswith("demo_anchor_only.csv.gz") and at.markdown[-1].value == "loads: 1"
    at.session_state["drop"] = True
    at.run()
    assert not at.exception
    assert at.markdown[-2].value == before and at.markdown[-1].value == "loads: 2"  # reloaded


_WITH_TEXT = (
    "instruction_id,model_a,model_b,verdict,feat_tone_a,feat_tone_b,prompt,response_a,response_b,judge_output\n"
    "q1,x,y,1,0.5,0.25,P1,**x1**,y1,o1\n"
    "q2,y,x,-1,,0.75,P2,y2,# x2,o2\n"
    "q3,x,y,0,1.0,1.5,,,,\n"
)


def _text_of(store: VerdictStore) -> list[tuple]:
    return sorted(
        (c.instruction, c.prompt, tuple(sorted(c.answers.items()))) for c in store.verdicts(limit=50).cases
    )


def test_a_saved_dataset_keeps_its_features_and_text(ws: Workspace) -> None:
    # Saving loses nothing: the feat_ columns and the prompts, answers and judge outputs come back.
    store = VerdictStore()
    table = store.load_bytes(_WITH_TEXT.encode(), name="text.csv")
    ws.save("with text", table, text=store.text_rows())
    back = VerdictStore()
    back.load(ws.load("with text").table)
    pd.testing.assert_frame_equal(back.frame(), store.frame())
    assert back.feature_sources()["tone"] == "feat_tone_a, feat_tone_b"
    assert _text_of(back) == _text_of(store) and back.has_text
    # a replaced version keeps its text in the history, and a restore brings it back
    plain = _upload(3, ("x", "y", "z"))[0]
    ws.save("with text", plain, replace=True)
    (old,) = ws.history("with text")
    ws.restore("with text", old.version)
    again = VerdictStore()
    again.load(ws.load("with text").table)
    assert _text_of(again) == _text_of(store)
    for s in (store, back, again):
        s.close()


def test_versions_beyond_the_kept_ones_take_their_text_and_features_along(ws: Workspace) -> None:
    store = VerdictStore()
    table = store.load_bytes(_WITH_TEXT.encode(), name="text.csv")
    for _ in range(KEEP_VERSIONS + 3):
        ws.save("busy", table, text=store.text_rows(), replace=True)
    con = duckdb.connect(str(ws.path))
    try:
        kept = {r[0] for r in con.execute("SELECT DISTINCT version FROM dataset_text").fetchall()}
        feats = {r[0] for r in con.execute("SELECT DISTINCT version FROM dataset_features").fetchall()}
    finally:
        con.close()
    assert len(kept) == KEEP_VERSIONS + 1 and kept == feats  # the current one and the kept ones
    store.close()


@pytest.mark.app
def test_a_dataset_saved_in_the_app_opens_with_its_text(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "ui.duckdb"))
    at = _app()
    at.file_uploader(key="upload").upload("text.csv", _WITH_TEXT.encode(), "text/csv").run()
    at.text_input(key="save_name").set_value("with text")
    _button(at, "Save").click().run()
    assert not at.exception and not at.error
    link = _app(dataset="with text")
    link.switch_page("pages/verdicts.py").run()
    assert not link.exception
    shown = "\n".join(str(e.value) for e in [*link.markdown, *link.code, *link.text])
    assert "P1" in shown and "y1" in shown  # the prompt and an answer, from the saved text


def _big(seed: int, instructions: int = 12000):
    return _sim(seed, n_instructions=instructions).verdicts


def test_deleting_for_good_gives_the_space_back(ws: Workspace) -> None:
    """Issue 30, item 8: the file stayed 114 MB after deletes. A dataset deleted for good (with
    its earlier versions) leaves the file near its size before the dataset was saved."""
    ws.save("small", _big(1, instructions=50))
    before = ws.path.stat().st_size
    ws.save("big", _big(2))
    ws.save("big", _big(3), replace=True)  # an earlier version in the history too
    grown = ws.path.stat().st_size
    assert grown > before + 3 * 1024**2
    assert ws.delete("big", forever=True) is True
    assert ws.names() == ("small",) and ws.history("big") == ()
    assert ws.path.stat().st_size < before + 1024**2
    assert len(ws.load("small").table.frame) == len(_big(1, instructions=50))
    assert ws.delete("big", forever=True) is False


def test_a_plain_delete_stays_restorable_until_deleted_for_good(ws: Workspace) -> None:
    ws.save("small", _big(1, instructions=50))
    before = ws.path.stat().st_size
    ws.save("big", _big(2))
    ws.delete("big")
    assert [d.version for d in ws.history("big")] == [1]  # restorable: its rows stay
    assert ws.delete("big", forever=True) is True  # only the history was left
    assert ws.history("big") == () and ws.path.stat().st_size < before + 1024**2


def test_compaction_killed_part_way_leaves_the_workspace_whole(tmp_path: Path) -> None:
    """kill -9 just before the compacted copy replaces the file: the old file is whole (every
    dataset there, the deletion committed) and the next open removes the half-made copy."""
    path = tmp_path / "ws.duckdb"
    small, big = _big(1, instructions=50), _big(2)
    Workspace(path).save("small", small)
    Workspace(path).save("big", big)
    script = (
        "import os, signal, sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from evalcore.store.workspace import Workspace\n"
        "os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL)\n"
        f"Workspace({str(path)!r}).delete('big', forever=True)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120)
    assert done.returncode == -9, done.stderr.decode()
    assert (tmp_path / "ws.duckdb.compact").exists()
    ws = Workspace(path)
    assert ws.names() == ("small",) and not (tmp_path / "ws.duckdb.compact").exists()
    pd.testing.assert_frame_equal(
        ws.load("small").table.frame[["instruction_id", "verdict"]].reset_index(drop=True),
        read_verdicts(small.to_csv(index=False).encode(), name="s.csv")
        .frame[["instruction_id", "verdict"]]
        .reset_index(drop=True),
        check_dtype=False,
    )
    assert ws.compact() > 0  # the space is given back on the next chance
    assert ws.names() == ("small",)


def test_replacing_many_times_keeps_the_file_bounded(ws: Workspace) -> None:
    """Issue 30, item 8: ten more saves made the file grow from 114 MB to 234 MB. Replacing a
    dataset keeps KEEP_VERSIONS earlier versions; the file stays within what those hold, plus at
    most the free share that triggers a compaction."""
    from evalcore.store.workspace import RECLAIM_FRACTION

    ws.save("busy", _big(5))
    one = ws.path.stat().st_size
    for seed in range(10):
        ws.save("busy", _big(10 + seed), replace=True)
    assert ws.path.stat().st_size < (KEEP_VERSIONS + 1) * one / (1 - RECLAIM_FRACTION) + 1024**2
    ws.delete("busy", forever=True)
    ws.save("busy", _big(5))
    assert ws.path.stat().st_size < 1.5 * one
