"""``judge``: a judge's spec sheet (position, order swaps, coverage, agreement, length, family)."""

from __future__ import annotations

import argparse
from pathlib import Path

from evalcore.cli.common import Command, load_store, opt, pick_category, print_json, select, show
from evalcore.judge import (
    DEFAULT_INTERVAL,
    INTERVALS,
    comparison_table,
    interval_words,
    judge_sheet,
    judge_sheets,
    read_families,
)
from evalcore.present import judge as page
from evalcore.text import fmt_count


def run_judge(args: argparse.Namespace) -> int:
    families = None
    if args.families:
        families = read_families(Path(args.families).read_text(encoding="utf-8-sig"))
    store = load_store(args.file)
    pick_category(store, args.category)  # every judge of the file: no judge to pick
    options = {
        "category": args.category,
        "rounds": args.bootstrap,
        "seed": args.seed,
        "families": families,
        "length_control": not args.no_length,
        "interval": args.interval,
    }
    rounds = args.bootstrap if args.interval == "bootstrap" else 0
    if args.all:
        sheets = judge_sheets(store, **options)
        if args.json:
            interval = interval_words(args.interval, rounds)
            table = comparison_table(sheets)
            return print_json(
                {
                    "interval": interval,
                    "interval_kind": args.interval,
                    "bootstrap_rounds": rounds,
                    "judges": table,
                }
            )
        # the Judge page's side-by-side table (the self-comparison tie rate is on the sheet)
        shown = page.side_by_side(sheets).drop(
            columns=[page.SIDE_BY_SIDE["self_comparison_tie_rate"]], errors="ignore"
        )
        show(
            f"95% intervals: {interval_words(args.interval, rounds)}.",
            shown,
            [f"warning: {text}" for text in page.judge_warnings(sheets)],
        )
        return 0
    judge = select(args, store=store).judge
    sheet = judge_sheet(store, judge, **options)
    if args.json:
        return print_json(sheet.as_dict())
    show(
        f"Judge {judge}: {fmt_count(sheet.position.calls, 'call')} with a verdict, "
        f"{fmt_count(sheet.n_instructions, 'instruction')}, "
        f"{fmt_count(sheet.n_models, 'model')}; 95% intervals: {sheet.interval_method}.",
        [f"warning: {text}" for text in sheet.design_warnings],
        [f"Note: {text}" for text in sheet.notes],
        sheet.certification and f"Certification: {sheet.certification.sentence()}",
        page.sheet_display(sheet).drop(columns=["meaning"]),
    )
    return 0


COMMANDS = (
    Command(
        "judge",
        "a judge's spec sheet: position bias, swap consistency, ties, "
        "coverage, slot bias, agreement with humans, length and self-preference",
        run_judge,
        (
            "file",
            "judge",
            opt(
                "--all",
                action="store_true",
                help="compare every judge side by side instead of one judge's sheet",
            ),
            "category",
            opt(
                "--interval",
                choices=INTERVALS,
                default=DEFAULT_INTERVAL,
                help="95%% intervals: analytic (cluster-robust over instructions, immediate; the "
                "default, as on the page and in the report) or bootstrap (resampling, slower)",
            ),
            opt(
                "bootstrap",
                default=2000,
                help="bootstrap rounds over instructions with --interval bootstrap (default 2000; 0 for none)",
            ),
            "seed",
            opt("families", help="a model,family CSV (judges listed by name too) for self-preference"),
            opt("--no-length", action="store_true", help="skip the length-controlled Bradley–Terry fit"),
        ),
    ),
)
