"""The command line: ``python -m evalcore <command> … [--json]``.

Each command lives in a module of this package with ``register(subparsers)``; it calls evalcore
functions and prints their results (a table for people, ``--json`` for scripts). Bad input exits
with code 2 and a one-line message, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import NoReturn

from evalcore.schema import VerdictFormatError

#: The command modules, in help order; each defines ``register(subparsers)``.
COMMAND_MODULES: tuple[str, ...] = (
    "data", "anchors", "judge", "power", "calibrate", "report", "ties",
)

#: Which module registers each command, so that running one imports only what it needs
#: (``--help`` and unknown commands still load them all).
COMMAND_HOME: dict[str, str] = {
    "summary": "data", "rank": "data", "anchors": "anchors", "judge": "judge",
    "power": "power", "power-detect": "power", "power-sim": "power",
    "calibrate": "calibrate", "floor": "calibrate", "gate": "calibrate",
    "report": "report", "ties": "ties",
}


class UsageError(Exception):
    """Input the command cannot work with; the message is shown as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line on stderr (exit 2), not the usage block."""

    def error(self, message: str) -> NoReturn:
        print(f"error: {self.prog}: {message} (see --help)", file=sys.stderr)
        raise SystemExit(2)


def build_parser(modules: tuple[str, ...] = COMMAND_MODULES) -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m evalcore",
        description="Verdict Lab: rank models from LLM-judge verdicts and check the judge.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in modules:
        importlib.import_module(f"evalcore.cli.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    home = COMMAND_HOME.get(argv[0]) if argv else None
    parser = build_parser((home,) if home else COMMAND_MODULES)
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except BrokenPipeError:  # output piped into `head` and closed early: not an error
        sys.stderr.close()
        return 0
    except (VerdictFormatError, UsageError, FileNotFoundError, IsADirectoryError, ValueError) as exc:
        message = str(exc).replace("\n", " ")
        if isinstance(exc, FileNotFoundError):
            message = f"no such file: {exc.filename}"
        print(f"error: {message}", file=sys.stderr)
        return 2
