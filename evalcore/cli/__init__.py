"""The command line: ``python -m evalcore <command> … [--json]``.

The commands are a table: each module of this package lists its :class:`~evalcore.cli.common.Command`
entries in ``COMMANDS`` (name, help, options, what it runs), the options several commands share
declared once (:data:`~evalcore.cli.common.SHARED`); a command calls evalcore functions and
prints their results (a table for people, ``--json`` for scripts). Every error is
one line on stderr, never a traceback: bad input exits with code 2 (the message names what to
change), a request over the memory budget with code 3, an unforeseen failure with code 1 (set
``VERDICTLAB_DEBUG=1`` to see its traceback).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import NoReturn

# The fits solve many small (models × models) systems: on a 2-core or shared machine one BLAS
# thread is several times faster than a pool fighting for cores (measured in
# benchmarks/bench_fragility.py). Set before numpy loads; a user's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from evalcore import errors, limits  # noqa: E402
from evalcore.cli.common import UsageError as UsageError  # noqa: E402 (re-exported: commands raise it)
from evalcore.cli.common import printable  # noqa: E402

#: The command modules in help order (each defines ``COMMANDS``) and the commands each one
#: declares, so that running one imports only its module (``--help`` and unknown commands load them
#: all; a test checks the names against the modules' tables).
COMMANDS_BY_MODULE: dict[str, tuple[str, ...]] = {
    "data": ("summary", "rank"),
    "anchors": ("anchors",),
    "judge": ("judge",),
    "power": ("power", "power-detect", "power-sim"),
    "calibrate": ("calibrate", "floor", "gate", "ppi", "certify"),
    "report": ("report",),
    "ties": ("ties",),
    "fragility": ("fragility",),
    "verdicts": ("verdicts",),
    "counts_sql": ("counts-sql",),
    "monitor": ("monitor",),
    "budget": ("budget",),
    "heterogeneity": ("heterogeneity",),
    "drift": ("drift",),
}
COMMAND_MODULES: tuple[str, ...] = tuple(COMMANDS_BY_MODULE)
#: Which module declares each command.
COMMAND_HOME: dict[str, str] = {name: home for home, names in COMMANDS_BY_MODULE.items() for name in names}

#: Set to 1 to let an unforeseen exception print its traceback (for developers).
DEBUG_VAR = "VERDICTLAB_DEBUG"


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line on stderr (exit 2), not the usage block."""

    def error(self, message: str) -> NoReturn:
        _say(f"error: {self.prog}: {message} (see --help)")
        raise SystemExit(2)


def build_parser(modules: tuple[str, ...] = COMMAND_MODULES) -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m evalcore",
        description="Verdict Lab: rank models from LLM-judge verdicts and check the judge.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in modules:
        for command in importlib.import_module(f"evalcore.cli.{name}").COMMANDS:
            command.declare(sub)
    from evalcore.cli.common import apply_ranges

    apply_ranges(parser)
    return parser


def _say(message: str) -> None:
    print(printable(message).replace("\n", " "), file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    home = COMMAND_HOME.get(argv[0]) if argv else None
    parser = build_parser((home,) if home else COMMAND_MODULES)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # a value out of its range, an unknown option (2), or --help (0)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        # the settings that bound memory are read before any work: a bad one is a message now,
        # not a failure in the middle of a load
        limits.budget_bytes()
        limits.LoadLimits.from_env()
        return int(args.handler(args) or 0)
    except BrokenPipeError:  # output piped into `head` and closed early: not an error
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        _say("error: interrupted")
        return 130
    except FileNotFoundError as exc:
        _say(f"error: no such file: {exc.filename}")
        return 2
    except OSError as exc:  # a folder, no permission, a disk error: the file and the reason
        where = f"{exc.filename}: " if exc.filename else ""
        _say(f"error: cannot read {where}{exc.strerror or exc}")
        return 2
    except errors.ResourceLimitError as exc:
        _say(f"error: {exc}")
        return 3
    except MemoryError as exc:  # numpy refusing an allocation, or the machine out of memory
        detail = f" ({exc})" if str(exc) else ""
        _say(
            f"error: this request needs more memory than this machine can give{detail}. One "
            f"request may use {limits.budget_bytes() // 2**20:,} MB ({limits.ENV_VAR}); ask for "
            "less (fewer rounds or simulations, a larger edge, a sample of the file)"
        )
        return 3
    except (errors.EvalcoreError, ValueError) as exc:  # VerdictFormatError is a ValueError
        _say(f"error: {exc}")
        return 2
    except Exception as exc:  # noqa: BLE001 - the last line of defence: words, not a traceback
        if os.environ.get(DEBUG_VAR):
            raise
        _say(
            f"error: an unexpected problem stopped the command ({type(exc).__name__}: {exc}). "
            f"Please report it with the command line; {DEBUG_VAR}=1 shows the details"
        )
        return 1
