"""Every numeric option has a range, checked before any work: a value outside it (a tiny edge, a
huge offset, a labelled-set size of 1e30, not a number at all) ends in one line that names the
option and says the range, with exit code 2, never "an unexpected problem" (exit 1), a hang, or
a meaningless number. Also: ``-o`` never overwrites an input, a missing ``--families`` file is
an error naming it, and the settings that bound memory are checked before work."""

from __future__ import annotations

import argparse

import pytest

from evalcore.cli import build_parser, main

#: (command line, the option the message must name). FILE is a path that does not exist: the
#: range is checked before the file is read.
BAD = [
    ("power --edge 1e-9 --exact", "--edge"),
    ("power --edge 1e-12 --exact", "--edge"),
    ("power --edge 1e-300", "--edge"),
    ("power --edge 0.05 --informativeness 1e-300", "--informativeness"),
    ("power --edge 0.05 --alpha nan", "--alpha"),
    ("power --edge 0.05 --power inf", "--power"),
    ("power --edge 0.05 --models 1", "--models"),
    ("power --edge 0.05 --orders 3", "--orders"),
    ("power-sim FILE --max-n 1e12", "--max-n"),
    ("power-sim FILE --simulations 1e300", "--simulations"),
    ("verdicts FILE --offset 100000000000000000000", "--offset"),
    ("verdicts FILE --offset 1e20", "--offset"),
    ("verdicts FILE --limit 1e3", "--limit"),
    ("verdicts FILE --width 10000000", "--width"),
    ("floor --youden 0.5 --labelled 1e30", "--labelled"),
    ("floor --youden 0.5 --labelled 1000000000000000000000000000000", "--labelled"),
    ("floor --youden nan", "--youden"),
    ("floor --youden 0.5 --true-share 2", "--true-share"),
    ("rank FILE --bootstrap 1e9", "--bootstrap"),
    ("rank FILE --seed -1", "--seed"),
    ("report FILE --seed 1e30", "--seed"),
    ("judge FILE --bootstrap 1e9", "--bootstrap"),
    ("fragility FILE --exhaustive 1e12", "--exhaustive"),
    ("calibrate FILE --rounds 1e9", "--rounds"),
    ("gate FILE --candidate a --margin nan", "--margin"),
    ("ppi FILE --lam 2", "--lam"),
    ("certify FILE --threshold 7", "--threshold"),
    ("monitor FILE --alpha 2", "--alpha"),
    ("monitor FILE --tuned-for 0", "--tuned-for"),
    ("heterogeneity FILE --min-verdicts 0", "--min-verdicts"),
    ("heterogeneity FILE --alpha 1", "--alpha"),
    ("budget FILE --a x --b y --budget -5 --price-per-call 0.1", "--budget"),
    ("budget FILE --a x --b y --budget 5 --price-per-call nan", "--price-per-call"),
    ("budget FILE --a x --b y --budget 5 --price-per-call 0.1 --max-anchors 0", "--max-anchors"),
]


def _run(argv: list[str], capsys) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse refuses a value while parsing
        code = int(exc.code or 0)
    return code, capsys.readouterr().err


@pytest.mark.parametrize(("line", "flag"), BAD, ids=[b[0] for b in BAD])
def test_an_option_out_of_its_range_is_refused_naming_it(line, flag, tmp_path, capsys):
    argv = [str(tmp_path / "missing.csv") if a == "FILE" else a for a in line.split()]
    code, err = _run(argv, capsys)
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err and "unexpected problem" not in err, err
    assert flag in err and "must be" in err, err


def test_every_numeric_option_has_a_range():
    """No option of any command parses a bare int or float: each has its checked range."""

    def bare(parser: argparse.ArgumentParser, where: str):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from bare(sub, name)
            elif action.type in (int, float):
                yield f"{where} {action.option_strings}"

    assert list(bare(build_parser(), "")) == []


def test_the_exact_power_search_is_bounded_in_words(capsys):
    code, err = _run(["power", "--edge", "0.0003", "--exact"], capsys)
    assert code == 2 and "searched up to 2,000,000 discordant samples" in err and "without --exact" in err


def test_report_never_overwrites_its_input(tmp_path, capsys, monkeypatch, small_sim):
    path = tmp_path / "x.csv"
    small_sim.verdicts.drop(columns=["row"]).to_csv(path, index=False)
    before = path.read_bytes()
    monkeypatch.chdir(tmp_path)
    link = tmp_path / "link.csv"
    link.symlink_to(path)
    for output in ("x.csv", str(path), "./x.csv", "../" + tmp_path.name + "/x.csv", str(link)):
        code, err = _run(["report", "x.csv", "-o", output], capsys)
        assert code == 2 and "--output" in err and "overwrite" in err, (output, err)
        assert path.read_bytes() == before
    ranking = tmp_path / "human.csv"
    ranking.write_text("model,score\na,1\n", encoding="utf-8")
    code, err = _run(["report", "x.csv", "--human-ranking", "human.csv", "-o", "human.csv"], capsys)
    assert (
        code == 2 and "--human-ranking" in err and ranking.read_text(encoding="utf-8") == "model,score\na,1\n"
    )


def test_rank_with_a_missing_families_file_is_an_error(tmp_path, capsys, small_sim):
    path = tmp_path / "x.csv"
    small_sim.verdicts.drop(columns=["row"]).to_csv(path, index=False)
    missing = tmp_path / "families.csv"
    for extra in ([], ["--control", "family"]):
        code, err = _run(["rank", str(path), "--bootstrap", "0", "--families", str(missing), *extra], capsys)
        assert code == 2 and str(missing) in err and "does not exist" in err, err


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("VERDICTLAB_MAX_BYTES", "infG"),
        ("VERDICTLAB_MAX_BYTES", "1e999G"),
        ("VERDICTLAB_MAX_ROWS", "1e30T"),
        ("VERDICTLAB_MEMORY_BUDGET_MB", "lots"),
    ],
)
def test_an_unreadable_memory_setting_is_refused_before_work(variable, value, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(variable, value)
    code, err = _run(["summary", str(tmp_path / "missing.csv")], capsys)
    assert code == 2 and variable in err and "unexpected problem" not in err, err
