"""``counts-sql``: the SQL that counts a verdict table where it lives (DuckDB, Spark, BigQuery,
PostgreSQL), the same aggregation the store runs (:mod:`evalcore.ingest.counts_table`)."""

from __future__ import annotations

import argparse

from evalcore.cli.common import Command, opt
from evalcore.ingest.counts_table import DIALECTS, OPTIONAL, counts_sql


def _names(text: str | None) -> tuple[str, ...]:
    return tuple(x.strip().lower() for x in (text or "").split(",") if x.strip())


def run(args: argparse.Namespace) -> int:
    print(
        counts_sql(
            args.table, dialect=args.dialect, columns=_names(args.columns), features=_names(args.features)
        )
        + ";"
    )
    return 0


COMMANDS = (
    Command(
        "counts-sql",
        "print the SQL that turns a verdict table into a counts table, for your engine",
        run,
        (
            opt("--dialect", choices=DIALECTS, required=True, help="the engine that runs the SQL"),
            opt(
                "--table",
                required=True,
                metavar="NAME",
                help="the verdict table (name, or schema.name / project.dataset.name)",
            ),
            opt(
                "--columns",
                default=",".join(OPTIONAL),
                metavar="LIST",
                help="the optional contract columns the table has, comma-separated (default: all of "
                + ", ".join(OPTIONAL)
                + "); a missing one is counted as its default",
            ),
            opt(
                "--features",
                default="",
                metavar="LIST",
                help="feat_<name>_a/_b columns to sum per row, comma-separated (for style control)",
            ),
        ),
        json=False,
    ),
)
