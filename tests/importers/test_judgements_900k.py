"""The anchor paper's released judgements (``ibm-research/900K-Judgements``): the importer on a
hand-made sample (tests/fixtures/native/judgements_900k), the bundled human ranking, the anchor
analysis against it, and the published all-pairs rankings (../shared/data/paper, when present)."""

from __future__ import annotations

import json
import math

import duckdb
import numpy as np
import pandas as pd
import pytest

from evalcore import importers
from evalcore.anchors import anchor_sweep
from evalcore.cli import main as cli_main
from evalcore.importers.judgements_900k import ALPACA_EVAL, ARENA_HARD, from_judgements_900k
from evalcore.ingest.files import read_raw
from evalcore.ingest.reference import human_ranking, paper_human_ranking, ranking_overlap
from evalcore.stats.kendall import kendall_tau
from evalcore.store.store import VerdictStore, read_verdicts
from tests.conftest import ROOT, shared_path

SAMPLE = ROOT / "tests" / "fixtures" / "native" / "judgements_900k" / "judgements.jsonl"
DS, OSS = "deepseek-ai/DeepSeek-V3", "openai/gpt-oss-120b"
Q, G, O3 = "Qwen/Qwen3-32B", "gemma-3-27b-it", "o3-2025-04-16"
N = "nvidia/Llama-3.1-Nemotron-70B-Instruct-HF"


def _parquet(tmp_path):
    out = tmp_path / "train-00000-of-00001.parquet"
    duckdb.execute(
        f"COPY (SELECT * FROM read_json('{SAMPLE}', format='newline_delimited')) TO '{out}' (FORMAT parquet)"
    )
    return out


def _rows(store: VerdictStore) -> list[tuple]:
    f = store.frame()
    return [
        (i, a, b, None if pd.isna(v) else int(v), j, c)
        for i, a, b, v, j, c in zip(
            f["instruction_id"],
            f["model_a"],
            f["model_b"],
            f["verdict"],
            f["judge"],
            f["category"],
            strict=True,
        )
    ]


@pytest.fixture(params=["jsonl", "parquet"])
def loaded(request, tmp_path):
    path = SAMPLE if request.param == "jsonl" else _parquet(tmp_path)
    store = VerdictStore()
    table = store.load_file(path)
    yield store, table
    store.close()


def test_the_published_columns_are_recognised():
    raw, _ = read_raw(SAMPLE)
    assert importers.detect_native(raw) == "judgements_900k"
    assert set(raw[0]) == {"uid", "judge_model", "model_a_in_prompt", "model_b_in_prompt", "final_verdict"}


def test_sample_rows_worked_by_hand(loaded):
    store, table = loaded
    assert table.format.startswith("Anchor-paper judgements (ibm-research/900K-Judgements)")
    rows = _rows(store)
    assert len(rows) == 33
    # uid "0a1b…_Qwen_Qwen3-32B_gemma-3-27b-it": '/' written as '_' in the uid; Qwen shown first;
    # "gemma-3-27b-it>Qwen/Qwen3-32B": slot B better → −1.
    assert rows[0] == ("0a1b2c3d4e5f6071", Q, G, -1, DS, ARENA_HARD)
    # The run swapped the answers: the uid lists Qwen first, the prompt showed Nemotron first
    # (slot A); "Qwen/Qwen3-32B>nvidia/…": slot B better → −1.
    assert rows[1] == ("0a1b2c3d4e5f6071", N, Q, -1, DS, ARENA_HARD)
    assert rows[2] == ("0a1b2c3d4e5f6071", Q, O3, -2, DS, ARENA_HARD)  # "o3>>Qwen": B much better
    assert rows[11] == ("1b2c3d4e5f607182", O3, N, 2, DS, ARENA_HARD)  # "o3>>nvidia/…": A much better
    assert rows[12] == ("2c3d4e5f60718293", Q, G, 0, DS, ARENA_HARD)  # "Qwen=gemma": a tie
    assert rows[18][4] == OSS  # judge_model is the judge
    # AlpacaEval prompts ("eval_newset_0_…"), a model name with underscores (my_model_v2)
    assert rows[24] == ("eval_newset_0", "gpt-4.1", "my_model_v2", 1, DS, ALPACA_EVAL)
    assert rows[25] == ("eval_newset_0", O3, "gpt-4.1", 2, DS, ALPACA_EVAL)
    assert rows[26] == ("eval_newset_0", O3, "my_model_v2", 0, DS, ALPACA_EVAL)  # "my_model_v2=o3…"
    # Kept as calls without a verdict: INVALID, empty, a third model named, no sign at all.
    t = "3d4e5f6071829304"
    assert rows[27:31] == [
        (t, Q, G, None, DS, ARENA_HARD),
        (t, N, Q, None, DS, ARENA_HARD),
        (t, Q, O3, None, DS, ARENA_HARD),
        (t, N, G, None, DS, ARENA_HARD),
    ]
    assert rows[31] == (t, G, O3, -2, DS, ARENA_HARD)  # "o3 >> gemma": spaces around the sign
    # A uid that does not end with its two models is its own prompt, never cut at a '_'.
    assert rows[32] == ("ffff000011112222_unknown", N, O3, -1, DS, ARENA_HARD)
    assert table.report.no_verdict_rows == 4
    assert "2 INVALID or empty" in table.format
    assert "1 naming a model that is not one of the call's two" in table.format
    assert "1 malformed" in table.format
    assert "1 uid does not end with their two model names" in table.format


def test_instance_recovery_with_underscores_and_slashes_in_names():
    frame = pd.DataFrame(
        {
            "uid": ["p_1_org_a_b_c_d", "p_1_c_d_org_a_b", "eval_newset_7_x.y-z_w_v", "p_1_c_d_org_a_b"],
            "model_a_in_prompt": ["org/a_b", "org/a_b", "w_v", "c_d"],
            "model_b_in_prompt": ["c_d", "c_d", "x.y-z", "org/a_b"],
            "final_verdict": ["c_d>org/a_b", "org/a_b>>c_d", "x.y-z=w_v", "org/a_b>c_d"],
        }
    )
    out, label = from_judgements_900k(frame, file="mine.parquet")
    assert out["instruction_id"].tolist() == ["p_1", "p_1", "eval_newset_7", "p_1"]
    assert out["verdict"].tolist() == ["-1", "2", "0", "-1"]  # slot A = model_a_in_prompt
    assert out["category"].tolist() == [ARENA_HARD, ARENA_HARD, ALPACA_EVAL, ARENA_HARD]
    assert "judge" not in out.columns  # no judge_model: the default judge
    assert "without a verdict" not in label


def test_python_and_sql_paths_agree():
    table = read_verdicts(SAMPLE)
    store = VerdictStore()
    store.load_file(SAMPLE)
    python = [
        (i, a, b, None if pd.isna(v) else int(v), j, c)
        for i, a, b, v, j, c in zip(
            table.frame["instruction_id"],
            table.frame["model_a"],
            table.frame["model_b"],
            table.frame["verdict"],
            table.frame["judge"],
            table.frame["category"],
            strict=True,
        )
    ]
    assert python == _rows(store)
    store.close()


def test_bundled_human_ranking_is_the_papers():
    ranking = paper_human_ranking()
    assert len(ranking) == 22 and ranking["model"].is_unique
    assert ranking.set_index("model").loc[O3, "score"] == 1446
    assert ranking.set_index("model").loc[N, "score"] == 1296
    assert human_ranking("paper").columns.tolist() == ["model", "score"]
    assert ranking_overlap([Q, G, O3, N, "my_model_v2"], ranking) == 4


def test_anchor_analysis_of_the_sample_against_the_bundled_human_ranking():
    store = VerdictStore()
    store.load_file(SAMPLE)
    sweep = anchor_sweep(store.counts(judge=DS, category=ARENA_HARD), human_ranking=human_ranking("paper"))
    store.close()
    assert sweep.design == "all pairs" and sweep.human_models_matched == 4
    tau = dict(zip(sweep.table["anchor"], sweep.table["tau_human"], strict=True))
    # Against gemma: o3 1, Qwen 1/6 (two losses, a tie), Nemotron 0 → the human order: tau 1.
    assert tau[G] == pytest.approx(1.0)
    assert tau[Q] == pytest.approx(1.0)  # o3 1, gemma 5/6, Nemotron 1/3
    # Against Nemotron, o3 and gemma both win every call (tied): tau-b = 2 / sqrt(2·3).
    assert tau[N] == pytest.approx(2 / math.sqrt(6))
    assert math.isnan(tau[O3])  # every model loses every call to o3: no ranking to correlate


def test_cli_anchors_with_the_papers_human_ranking(capsys):
    code = cli_main(
        ["anchors", str(SAMPLE), "--judge", DS, "--category", ARENA_HARD, "--human", "paper", "--json"]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["human_models_matched"] == 4
    by = {r["anchor"]: r for r in out["anchors"]}
    assert by[N]["tau_human"] == pytest.approx(2 / math.sqrt(6))


def test_published_all_pairs_rankings_against_the_bundled_human_elo():
    """Kendall's tau-b of each judge's published all-pairs ranking with the bundled human Elo:
    the values the reference folder's README computes from these two lists (0.373 … 0.443)."""
    path = shared_path("data", "paper", "judge_allpairs_rankings.csv")  # skips where absent
    human = paper_human_ranking().set_index("model")["score"]
    ranks = pd.read_csv(path)
    expected = {
        "Qwen3-8B": 0.373,
        "DeepSeek-V3": 0.521,
        "gpt-oss-120b": 0.538,
        "Qwen3-235B-A22B-Instruct-2507": 0.451,
        "gpt-oss-20b": 0.443,
    }
    for judge, want in expected.items():
        r = ranks[ranks["judge"] == judge]
        assert set(r["model"]) == set(human.index)  # the same 22 names as the judgements
        got = float(kendall_tau(-r["rank"].to_numpy(float), human[r["model"]].to_numpy(float), variant="b"))
        assert got == pytest.approx(want, abs=5e-4), judge
        assert np.isfinite(got)


def test_notebook_facade_takes_the_papers_ranking_by_name():
    import evalcore

    ds = evalcore.load(SAMPLE)
    sweep = ds.anchors(judge=DS, category=ARENA_HARD, human_ranking="paper")
    assert sweep.human_models_matched == 4


def test_report_takes_the_papers_human_ranking(tmp_path, capsys):
    out = tmp_path / "report.html"
    code = cli_main(
        [
            "report",
            str(SAMPLE),
            "--judge",
            DS,
            "--human-ranking",
            "paper",
            "-o",
            str(out),
            "--bootstrap",
            "50",
        ]
    )
    assert code == 0
    assert "with the human ranking" in out.read_text(encoding="utf-8")


def test_a_value_of_the_wrong_type_is_set_aside_in_memory_too():
    """The in-memory conversion sets aside the rows the SQL path sets aside, and names them."""
    rows = [
        {
            "uid": f"q{k}_x_y",
            "judge_model": "j",
            "model_a_in_prompt": "x",
            "model_b_in_prompt": "y",
            "final_verdict": "x>y",
        }
        for k in range(5)
    ]
    rows[2]["uid"] = [1, 2]
    rows[3]["final_verdict"] = 3
    out, label = from_judgements_900k(pd.DataFrame(rows), file="j.json")
    assert out["instruction_id"].tolist() == ["q0", "q1", "q4"] and out["verdict"].tolist() == ["1"] * 3
    assert "row 3, uid '[1, 2]' (a list)" in label and "row 4, final_verdict '3' (a number)" in label
