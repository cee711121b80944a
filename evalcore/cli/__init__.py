"""The command line: ``python -m evalcore <command> … [--json]``.

Each command lives in a module of this package with ``register(subparsers)``; it calls evalcore
functions and prints their results (a table for people, ``--json`` for scripts). Bad input exits
with code 2 and a one-line message, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from evalcore.schema import VerdictFormatError

#: The command modules, in help order; each defines ``register(subparsers)``.
COMMAND_MODULES: tuple[str, ...] = (
    "data", "anchors", "judge", "power", "calibrate", "report", "ties",
)


class UsageError(Exception):
    """Input the command cannot work with; the message is shown as one line, exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m evalcore",
        description="Verdict Lab: rank models from LLM-judge verdicts and check the judge.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"evalcore.cli.{name}")
        except ModuleNotFoundError as exc:  # a command module not written yet
            if exc.name == f"evalcore.cli.{name}":
                continue
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
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
