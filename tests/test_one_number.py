"""One quantity, one number: what the Overview says is what the detail pages say.

Each dataset is walked as a person does it in one session (AppTest: Data → Overview → Power →
Calibration → Leaderboard), and the numbers are read off the screen: counts of models,
instructions and judges, the leader and runner-up, their printed win rate, whether it can be
corrected and the floor, and this judge's floor in the two tables of the Calibration page's Floor
tab. Datasets: the demo (all pairs, both orders, human labels), the anchor-only demo
(AlpacaEval's shape: every model against one anchor) and an arena-shaped table (one
prompt per battle, uneven pairing, no labels) with calls that have no verdict, so the file's
instruction count and the judge's differ.
"""

from __future__ import annotations

import re

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from evalcore import quantities as q
from evalcore.simulate.tables import simulate_arena, write_arena_dump
from tests.conftest import new_app, open_tab

pytestmark = pytest.mark.app  # every test here walks the app

NUMBER = r"[\d,]+"
FLOOR_HEADING = q.name("planning_floor") + " (± percentage points)"


def _unescape(source: str) -> str:
    return re.sub(r"\\(.)", r"\1", source).replace("\u2060", "")


def _int(text: str) -> int:
    return int(text.replace(",", ""))


def _arena_bytes(folder) -> bytes:
    """A sparse arena table (40 models, one prompt per battle) plus calls with no verdict on
    instructions of their own: the file has more instructions than the judge has verdicts on."""
    sim = simulate_arena(n_battles=4000, n_models=25, tie_share=0.35, seed=5)
    json_path, pq = folder / "battles.json", folder / "battles.parquet"
    write_arena_dump(sim, json_path, parquet_path=pq)
    out = folder / "arena_with_gaps.parquet"
    con = duckdb.connect()
    con.execute(
        f"""COPY (SELECT * FROM '{pq}' UNION ALL
                  SELECT 'no-verdict-' || i::VARCHAR, 'sim-arena-000', 'sim-arena-001',
                         NULL::TINYINT, 'Chatbot Arena voters', 'English'
                  FROM range(7) t(i))
            TO '{out}' (FORMAT parquet)"""
    )
    con.close()
    return out.read_bytes()


def _metrics(at: AppTest) -> dict[str, tuple[str, str]]:
    return {m.label: (_unescape(m.value), _unescape(m.proto.delta)) for m in at.metric}


def _walk(at: AppTest) -> dict:
    """Read every number this test compares off the pages of one session."""
    seen: dict = {}
    data = _metrics(at)
    seen["data_models"] = _int(data["Models"][0])
    seen["data_instructions"] = _int(data["Instructions"][0])
    seen["data_judges"] = _int(data["Judges"][0])

    at.switch_page("pages/overview.py").run()
    assert not at.exception
    seen["judges_offered"] = len(at.selectbox(key="overview_judge_select").options)
    sentence = next(_unescape(m.value) for m in at.markdown if "findings for judge" in m.value)
    found = re.search(rf"({NUMBER}) models, ({NUMBER}) instructions", sentence)
    seen["overview_models"], seen["overview_instructions"] = _int(found[1]), _int(found[2])
    cover = re.search(rf"cover ({NUMBER}) models on ({NUMBER}) instructions", sentence)
    seen["overview_judge_models"] = _int(cover[1]) if cover else seen["overview_models"]
    seen["overview_judge_instructions"] = _int(cover[2]) if cover else seen["overview_instructions"]
    tiles = _metrics(at)
    seen["leader"] = tiles["Leader"][0]
    seen["runner_up"] = tiles[q.name("lead_over_next")][1].removeprefix("Elo points over ").strip()
    seen["correctable"] = tiles.get("Win rate correctable?")
    text = "\n".join(_unescape(m.value) for m in at.markdown)
    printed = re.search(r"prints a win rate of ([\d.]+%) for (.+?) against (.+?) \(95%", text)
    seen["overview_printed"] = printed[1] if printed else None
    seen["overview_pair"] = (printed[2], printed[3]) if printed else None

    at.switch_page("pages/power.py").run()
    assert not at.exception
    seen["power_instructions"] = _int(_metrics(at)[q.name("instructions")][0])

    at.switch_page("pages/calibration.py").run()
    assert not at.exception
    seen["cal_candidate"] = at.selectbox(key="cal_candidate").value
    seen["cal_against"] = at.selectbox(key="cal_baseline").value
    cal = _metrics(at)
    seen["cal_printed"] = cal.get(q.name("printed_win_rate"), (None,))[0]
    seen["cal_corrected"] = cal.get(q.name("corrected_win_share"), (None,))[0]
    seen["cal_errors"] = [e.value for e in at.error]
    # the Correction tab's verdict: "Corrected rate … cannot be tighter than ±x" or "Correction
    # refused. … cannot be tighter than ±x percentage points …"
    verdict = [_unescape(m.value) for m in [*at.success, *at.warning] if "orrect" in m.value]
    floor = re.search(r"cannot be tighter than ±([\d.]+)", "\n".join(verdict))
    seen["cal_floor"] = floor[1] if floor else None
    open_tab(at, "cal_tab", "Floor and sample size")  # the page draws only the open tab
    frames = [d.value for d in at.dataframe]
    seen["floor_tables"] = (
        next((f for f in frames if any(str(c).startswith("this judge") for c in f.columns)), None),
        next((f for f in frames if FLOOR_HEADING in f.columns), None),
    )

    at.switch_page("pages/leaderboard.py").run()
    assert not at.exception
    board = next(d.value for d in at.dataframe if "Rating" in d.value.columns)
    seen["leaderboard_models"] = len(board)
    # a model marked not comparable (only ever in one slot) is left out of the headline's top two
    comparable = board[board["Comparable"] == "yes"] if "Comparable" in board.columns else board
    seen["leaderboard_top2"] = tuple(comparable["Model"].astype(str).head(2))
    seen["leaderboard_not_comparable"] = sorted(set(board["Model"]) - set(comparable["Model"]))
    return seen


@pytest.fixture(scope="module", params=["demo", "anchor-only", "arena"])
def walk(request, tmp_path_factory) -> tuple[str, dict]:
    at = new_app(timeout=300)
    with pytest.MonkeyPatch.context() as mp:
        if request.param != "demo":  # the demo is replaced at once: open on its small copy
            mp.setenv("VERDICTLAB_DEMO_DIR", str(request.getfixturevalue("small_demo_dir")))
        at.run()
    assert not at.exception
    if request.param == "anchor-only":
        label = next(d for d in at.selectbox(key="demo_choice").options if "anchor-only" in d)
        at.selectbox(key="demo_choice").select(label).run()
        at.button(key="load_demo").click().run()
        assert not at.exception
    if request.param == "arena":
        folder = tmp_path_factory.mktemp("arena")
        at.file_uploader(key="upload").upload(
            "arena.parquet", _arena_bytes(folder), "application/octet-stream"
        )
        at.run()
        assert not at.exception
    return request.param, _walk(at)


def test_counts_of_models_judges_and_instructions_agree(walk):
    name, seen = walk
    assert seen["data_models"] == seen["overview_models"], name
    assert seen["data_instructions"] == seen["overview_instructions"], name
    assert seen["data_judges"] == seen["judges_offered"], name
    # the judge's own instructions: the Overview's sentence and the Power page's N
    assert seen["overview_judge_instructions"] == seen["power_instructions"], name
    # every model the judge has verdicts for is on the leaderboard
    assert seen["overview_judge_models"] == seen["leaderboard_models"], name
    if name == "arena":  # the file has instructions with no verdict: the sentence says both
        assert seen["overview_judge_instructions"] == seen["data_instructions"] - 7


def test_the_top_two_are_the_same_everywhere(walk):
    name, seen = walk
    assert (seen["leader"], seen["runner_up"]) == seen["leaderboard_top2"], name
    # the anchor-only demo shows its reference in slot B only: its rating is not comparable
    assert seen["leaderboard_not_comparable"] == (["sim-birch"] if name == "anchor-only" else []), name
    # the Calibration page starts with the Overview's pair (the runner-up when the two met)
    assert seen["cal_candidate"] == seen["leader"], name
    assert seen["cal_against"] in (seen["runner_up"], "All opponents"), name
    if seen["overview_pair"] is not None:
        against = "all opponents" if seen["cal_against"] == "All opponents" else seen["cal_against"]
        assert seen["overview_pair"] == (seen["cal_candidate"], against), name


def test_correctability_and_win_rate_agree_with_the_calibration_default(walk):
    name, seen = walk
    if seen["correctable"] is None:  # no human labels: neither page prints a corrected number
        assert seen["cal_corrected"] in (None, "refused") or seen["cal_errors"], name
        return
    value, note = seen["correctable"]
    assert seen["overview_printed"] == seen["cal_printed"], name
    if value == "Yes":
        assert note == f"corrected {seen['cal_corrected']}", name
    else:
        assert seen["cal_corrected"] == "refused", name
        if note.startswith("floor"):
            assert note == f"floor ±{seen['cal_floor']} pp", name


def test_this_judges_floor_is_one_number_on_the_floor_tab(walk):
    name, seen = walk
    table, ladder = seen["floor_tables"]
    if table is None or ladder is None:
        assert name != "demo", "the demo has labelled rows: its floor tab shows both tables"
        pytest.skip(f"{name}: no labelled rows, no floor tab numbers")
    own = next(c for c in table.columns if str(c).startswith("this judge"))
    mine = dict(zip(table["Labelled pairs"], table[own], strict=True))
    theirs = dict(zip(ladder["Labelled pairs"], ladder[FLOOR_HEADING], strict=True))
    shared = set(mine) & set(theirs)
    assert shared, name
    for n in shared:
        assert mine[n] == theirs[n], (name, n)
