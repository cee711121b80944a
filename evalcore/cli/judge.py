"""``judge``: a judge's spec sheet (position, order swaps, coverage, agreement, length, family)."""

from __future__ import annotations

import argparse
from pathlib import Path

from evalcore.cli.common import (
    Command,
    load_store,
    opt,
    pick_category,
    print_json,
    print_metrics,
    print_notes,
    print_table,
    select,
)
from evalcore.judge import comparison_table, judge_sheet, judge_sheets, read_families


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
    }
    if args.all:
        table = comparison_table(judge_sheets(store, **options))
        if args.json:
            interval = "2.5-97.5 percentiles of a bootstrap over instructions"
            return print_json({"interval": interval, "bootstrap_rounds": args.bootstrap, "judges": table})
        # the Judge page's side-by-side columns (the self-comparison tie rate is on the sheet)
        from evalcore.present.judge import SIDE_BY_SIDE

        shown = [c for c in SIDE_BY_SIDE if c != "self_comparison_tie_rate"]
        columns = [c for c in shown if c in table.columns]
        print_table(table[columns])
        if "design_warnings" in table.columns:
            for name, text in zip(table["judge"], table["design_warnings"], strict=True):
                if isinstance(text, str) and text:
                    print(f"warning ({name}): {text}")
        return 0
    judge = select(args, store=store).judge
    sheet = judge_sheet(store, judge, **options)
    if args.json:
        return print_json(sheet.as_dict())
    print(
        f"judge {judge}: {sheet.position.calls:,} calls with a verdict, "
        f"{sheet.n_instructions:,} instructions, {sheet.n_models} models; 95% intervals from "
        f"{args.bootstrap:,} bootstrap rounds over instructions"
    )
    print_notes(sheet.design_warnings, label="warning")
    print_notes(sheet.notes)
    if sheet.certification is not None:
        print(f"certification: {sheet.certification.sentence()}")
    print_metrics(sheet.table()[["metric", "value", "low", "high"]])
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
                "bootstrap",
                default=2000,
                help="bootstrap rounds over instructions (default 2000; 0 for none)",
            ),
            "seed",
            opt("families", help="a model,family CSV (judges listed by name too) for self-preference"),
            opt("--no-length", action="store_true", help="skip the length-controlled Bradley–Terry fit"),
        ),
    ),
)
