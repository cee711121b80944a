"""``calibrate``, ``floor`` and ``gate`` on the command line: JSON equals the library's result; the
gate exits 0 on pass, 1 on fail (saying why), 2 on bad input."""

from __future__ import annotations

import json

import pytest

from evalcore.calibration import calibrate, floor_table
from evalcore.cli import main
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
from tests.frames import on_store

calibrate = on_store(calibrate)


@pytest.fixture(scope="module")
def verdict_file(tmp_path_factory):
    # Strengths are sorted: sim-alder is the strongest model, sim-dogwood the weakest.
    sim = simulate(
        SimulationSpec(
            n_models=4,
            n_instructions=150,
            human_fraction=0.4,
            seed=5,
            categories=("x", "y"),
            judges=(JudgeSpec("good", noise=0.3), JudgeSpec("other", noise=0.8)),
        )
    )
    path = tmp_path_factory.mktemp("cal") / "verdicts.csv"
    sim.verdicts.drop(columns=["row"]).to_csv(path, index=False)
    return path, sim.verdicts


def _json(capsys) -> dict:
    return json.loads(capsys.readouterr().out)


def test_calibrate_json_equals_the_library(verdict_file, capsys):
    path, frame = verdict_file
    assert main(["calibrate", str(path), "--judge", "good", "--candidate", "sim-birch", "--json"]) == 0
    out = _json(capsys)
    expected = calibrate(frame, judge="good", candidate="sim-birch").as_dict()
    for key in (
        "se",
        "sp",
        "youden_j",
        "printed",
        "corrected",
        "lr_low",
        "lr_high",
        "naive_low",
        "naive_high",
        "refused",
        "n_labelled",
        "floor",
    ):
        assert out[key] == pytest.approx(expected[key]), key
    assert out["refused"] is False and out["confidence"] == pytest.approx(0.95)


def test_calibrate_table_and_refusal_in_words(verdict_file, capsys):
    path, _ = verdict_file
    assert (
        main(
            [
                "calibrate",
                str(path),
                "--judge",
                "other",
                "--candidate",
                "sim-birch",
                "--baseline",
                "sim-cedar",
                "--max-floor",
                "5",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "Printed win rate" in out and "Correction refused" in out


def test_calibrate_transfer_warning(verdict_file, capsys):
    path, _ = verdict_file
    main(["calibrate", str(path), "--judge", "good", "--category", "x", "--labelled-category", "y", "--json"])
    assert "may not transfer" in _json(capsys)["transfer_warning"]


def test_floor_json_equals_the_table(capsys):
    assert main(["floor", "--labelled", "25", "400", "--youden", "0.57", "0.21", "--json"]) == 0
    out = _json(capsys)
    expected = floor_table((25, 400), (0.57, 0.21))
    assert [r["floor"] for r in out["rows"]] == pytest.approx(expected["floor"].tolist())
    assert main(["floor", "--youden", "0.57", "--target", "10", "--json"]) == 0
    plan = _json(capsys)["plans"][0]
    assert plan["reachable"] and 580 <= plan["n_judged"] <= 750


def test_floor_table_output_and_out_of_reach(capsys):
    assert main(["floor", "--youden", "0.21", "--target", "5"]) == 0
    out = capsys.readouterr().out
    assert "J = 0.21" in out and "out of reach" in out


def test_gate_passes_with_exit_0(verdict_file, capsys):
    path, _ = verdict_file
    code = main(
        ["gate", str(path), "--judge", "good", "--candidate", "sim-alder", "--baseline", "sim-dogwood"]
    )
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("PASS") and "printed" in out


def test_gate_fails_with_exit_1_and_says_why(verdict_file, capsys):
    path, _ = verdict_file
    code = main(
        [
            "gate",
            str(path),
            "--judge",
            "good",
            "--candidate",
            "sim-dogwood",
            "--baseline",
            "sim-alder",
            "--margin",
            "0.05",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1 and out.startswith("FAIL") and "non-inferiority" in out
    assert "rests on the printed number" in out  # seed 003 §5's warning
    code = main(
        [
            "gate",
            str(path),
            "--judge",
            "good",
            "--candidate",
            "sim-dogwood",
            "--baseline",
            "sim-alder",
            "--kind",
            "superiority",
            "--corrected",
            "--json",
        ]
    )
    result = _json(capsys)
    assert code == 1 and result["passed"] is False and result["gated_on"] == "corrected"


@pytest.mark.parametrize(
    "argv",
    [
        ["--candidate", "gpt-nothing", "--baseline", "sim-alder"],
        ["--candidate", "sim-alder"],  # no baseline
        ["--candidate", "sim-alder", "--baseline", "sim-birch", "--kind", "superiority", "--margin", "0.05"],
        ["--candidate", "sim-alder", "--baseline", "sim-birch", "--margin", "5"],
        ["--candidate", "sim-alder", "--baseline", "sim-birch", "--judge", "nobody"],
        ["--candidate", "sim-alder", "--baseline", "sim-birch", "--category", "zzz"],
    ],
)
def test_gate_bad_input_exits_2(verdict_file, argv, capsys):
    path, _ = verdict_file
    assert main(["gate", str(path)] + argv) == 2
    # a "note:" line (which judge was used) may come before the one error line
    err = "".join(line for line in capsys.readouterr().err.splitlines(True) if not line.startswith("note: "))
    assert err.startswith("error: ") and err.count("\n") == 1


def test_missing_file_exits_2(capsys):
    assert main(["gate", "/no/such/file.csv", "--candidate", "a", "--baseline", "b"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_calibrate_both_orders(verdict_file, capsys):
    path, frame = verdict_file
    assert (
        main(
            ["calibrate", str(path), "--judge", "good", "--candidate", "sim-birch", "--both-orders", "--json"]
        )
        == 0
    )
    out = _json(capsys)
    expected = calibrate(frame, judge="good", candidate="sim-birch", both_orders=True).as_dict()
    assert out["both_orders"] is True and out["n_judged"] == expected["n_judged"]
    assert out["corrected"] == pytest.approx(expected["corrected"])
    assert main(["calibrate", str(path), "--judge", "good", "--both-orders"]) == 2  # needs a candidate


def test_unit_follows_the_table_and_can_be_chosen(verdict_file, capsys):
    path, frame = verdict_file  # simulated in both orders
    assert main(["calibrate", str(path), "--judge", "good", "--candidate", "sim-birch", "--json"]) == 0
    auto = _json(capsys)
    assert auto["unit"] == "both-orders verdict" and auto["both_orders_share"] == pytest.approx(1.0)
    assert (
        main(
            [
                "calibrate",
                str(path),
                "--judge",
                "good",
                "--candidate",
                "sim-birch",
                "--unit",
                "call",
                "--json",
            ]
        )
        == 0
    )
    calls = _json(capsys)
    assert calls["unit"] == "judge call" and calls["n_judged"] == 2 * auto["n_judged"]
    assert any("counts twice" in w for w in calls["design_warnings"])
    assert calls["corrected_win_rate"]["method"].startswith("bootstrap over instructions")
    assert main(["calibrate", str(path), "--judge", "good", "--unit", "both-orders"]) == 2


def test_gate_json_states_the_estimand(verdict_file, capsys):
    path, _ = verdict_file
    main(
        [
            "gate",
            str(path),
            "--judge",
            "good",
            "--candidate",
            "sim-alder",
            "--baseline",
            "sim-dogwood",
            "--corrected",
            "--json",
        ]
    )
    out = _json(capsys)
    assert out["gated_on"] == "corrected" and "ties as half a win" in out["estimand"]
    assert out["unit"] == "both-orders verdict"
    main(
        [
            "gate",
            str(path),
            "--judge",
            "good",
            "--candidate",
            "sim-alder",
            "--baseline",
            "sim-dogwood",
            "--json",
        ]
    )
    printed = _json(capsys)
    assert printed["gated_on"] == "printed" and "wins plus half the ties" in printed["estimand"]


def test_ppi_json_equals_the_library(verdict_file, capsys):
    from evalcore.calibration import ppi_ratings

    path, frame = verdict_file
    assert main(["ppi", str(path), "--judge", "good", "--json"]) == 0
    out = _json(capsys)
    lib = on_store(ppi_ratings)(frame, judge="good")
    assert out["lambda"] == pytest.approx(lib.lam)
    assert out["n_labelled_pairs"] == lib.n_labelled_pairs
    first = out["models"][0]
    assert first["ppi"]["low"] == pytest.approx(lib.ppi[0].low)
    assert first["human_only"]["high"] == pytest.approx(lib.human[0].high)
    assert "Dorner" in out["ceiling"]
    assert main(["ppi", str(path), "--judge", "good", "--lam", "0"]) == 0
    text = capsys.readouterr().out
    assert (
        "Prediction-powered" in text
        and "human-only study with about 330" in text
        and "(weight on the judge 0.00)" in text
    )


def test_ppi_refuses_in_words(verdict_file, capsys):
    path, _ = verdict_file
    assert main(["ppi", str(path), "--judge", "good", "--min-labelled", "100000"]) == 2
    assert "labelled pairs" in capsys.readouterr().err
    assert main(["ppi", str(path), "--judge", "good", "--lam", "2"]) == 2
    assert "--lam" in capsys.readouterr().err


def test_certify_exits_0_when_certified_1_when_not(verdict_file, capsys):
    from evalcore.judge.certification import certify_judge

    path, frame = verdict_file
    code = main(["certify", str(path), "--judge", "good", "--threshold", "0.5", "--json"])
    out = _json(capsys)
    lib = on_store(certify_judge)(frame, "good", threshold=0.5)
    assert code == (0 if lib.certified else 1) == 0
    assert out["wins"]["labelled"] == lib.wins.n and out["non_wins"]["agreed"] == lib.non_wins.agreed
    assert main(["certify", str(path), "--judge", "other", "--threshold", "0.99"]) == 1
    assert "Not certified" in capsys.readouterr().out
    assert main(["certify", str(path), "--judge", "good", "--candidate", "nobody"]) == 2
    assert "nobody" in capsys.readouterr().err


def test_gate_on_prediction_powered_ratings(verdict_file, capsys):
    from evalcore.calibration import ppi_gate, ppi_ratings

    path, frame = verdict_file
    args = ["gate", str(path), "--judge", "good", "--candidate", "sim-alder", "--baseline", "sim-dogwood"]
    assert main([*args, "--ppi", "--json"]) == 0  # the strongest model against the weakest
    out = _json(capsys)
    lib = ppi_gate(on_store(ppi_ratings)(frame, judge="good"), "sim-alder", "sim-dogwood")
    assert out["gated_on"] == "prediction-powered" and out["bound"] == pytest.approx(lib.bound)
    assert main([*args, "--ppi", "--corrected"]) == 2
    assert "--ppi and --corrected" in capsys.readouterr().err
