"""``rank FILE --judge all``: every judge pooled, each with its weight under ``judge_weights``."""

from __future__ import annotations

import json
import re

import pytest

from evalcore import quantities as q
from evalcore.cli import main
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
from tests.test_catalogue import _keys

JUDGES = (
    JudgeSpec("sharp", noise=0.2),
    JudgeSpec("middling", noise=1.0),
    JudgeSpec("noisy", noise=3.0, slot_bias=0.8),
)


@pytest.fixture(scope="module")
def three_judge_file(tmp_path_factory):
    sim = simulate(SimulationSpec(n_models=6, n_instructions=40, seed=2, judges=JUDGES, human_fraction=0.3))
    path = tmp_path_factory.mktemp("judges") / "three.csv"
    sim.verdicts.to_csv(path, index=False)
    return path


def test_rank_judge_all_json_gives_the_weights(three_judge_file, capsys):
    assert main(["rank", str(three_judge_file), "--judge", "all", "--bootstrap", "20", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    weights = {w["judge"]: w["weight"] for w in out["judge_weights"]}
    assert weights["sharp"] > weights["middling"] > weights["noisy"]
    assert [m["rank"] for m in out["models"]] == list(range(1, 7))
    # labelled rows: each judge's certification beside its weight
    assert all(j["certified"] is not None and j["certification"] for j in out["judges"])
    known = set(q.json_key_ids()) | q.STRUCTURAL_JSON_KEYS | q.DETAIL_JSON_KEYS
    unplaced = {
        k for k in _keys(out, set()) if k not in known and re.sub(r"_(low|high)$", "", k) not in known
    }
    assert unplaced == set()


def test_rank_judge_all_text_and_one_judge_refused(three_judge_file, tmp_path, capsys):
    assert main(["rank", str(three_judge_file), "--judge", "all", "--bootstrap", "0"]) == 0
    text = capsys.readouterr().out
    assert re.search(r"(?m)^ *sharp +\S", text) and "Judge weight" in text and "plain pooling" in text
    one = tmp_path / "one.csv"
    lines = three_judge_file.read_text().splitlines()
    judge_col = lines[0].split(",").index("judge")
    one.write_text("\n".join([lines[0], *[x for x in lines[1:] if x.split(",")[judge_col] == "sharp"]]))
    assert main(["rank", str(one), "--judge", "all", "--json"]) == 2
    err = capsys.readouterr().err
    assert "at least two judges" in err and "Traceback" not in err
