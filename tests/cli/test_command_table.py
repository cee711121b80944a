"""The command table: each module's commands are where ``COMMANDS_BY_MODULE`` says (running one
imports only its module), and the bounds of the numeric options are the options' own ranges."""

from __future__ import annotations

import importlib

import pytest

from evalcore import limits
from evalcore.cli import COMMAND_HOME, COMMANDS_BY_MODULE, main


def test_every_command_is_listed_under_its_module():
    for module, names in COMMANDS_BY_MODULE.items():
        declared = tuple(c.name for c in importlib.import_module(f"evalcore.cli.{module}").COMMANDS)
        assert declared == names, module
    assert len(COMMAND_HOME) == sum(len(names) for names in COMMANDS_BY_MODULE.values())


def test_the_simulations_memory_check_is_the_library_s(monkeypatch):
    # 512 bytes per simulation: a million need 512 MB, more than a 16 MB budget
    from evalcore.power import DifferenceDistributions, wilcoxon_power

    monkeypatch.setenv(limits.ENV_VAR, "16")
    dists = DifferenceDistributions.from_samples([[1, 1, 1, -1]])
    with pytest.raises(limits.ResourceLimitError, match="simulations"):
        wilcoxon_power(dists, [20], simulations=1_000_000, seed=0)


def test_a_command_runs_with_only_its_module_known(capsys):
    assert main(["floor", "--youden", "0.5", "--json"]) == 0
    assert '"rows"' in capsys.readouterr().out


@pytest.fixture()
def table_file(tmp_path, small_sim):
    path = tmp_path / "verdicts.csv"
    small_sim.verdicts.drop(columns=["row"]).to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        # the library's own checks, not a second copy in the command
        (["certify", "{file}", "--candidate", "nobody"], "candidate 'nobody' is not a model of the table"),
        (["calibrate", "{file}", "--rounds", "0"], "rounds must be at least 1"),
    ],
)
def test_the_library_refuses_what_it_checks(table_file, capsys, argv, words):
    assert main([a.replace("{file}", table_file) for a in argv]) == 2
    assert words in capsys.readouterr().err


def test_a_tile_prints_its_note(capsys):
    # the tile's third field is its note: a command printing tiles without it lost every
    # explanation the page shows under a figure
    from evalcore.cli.common import show
    from evalcore.present.display import Metric

    show(Metric("Models moved", "0", "ties modelled against half a win"))
    assert capsys.readouterr().out == "Models moved: 0 — ties modelled against half a win\n"
