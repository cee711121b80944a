"""``verdicts``: the cases behind the numbers, with their prompt, answers and the judge's text."""

from __future__ import annotations

import argparse
from dataclasses import fields

from evalcore.cli.common import (
    Command,
    UsageError,
    display_name,
    given,
    load_store,
    opt,
    print_json,
    printable,
)
from evalcore.present.verdict_words import case_lines, page_headline
from evalcore.verdicts import VERDICT_KINDS, VerdictFilter


def run_verdicts(args: argparse.Namespace) -> int:
    # every filter this command offers is an option of the filter's field name
    flt = VerdictFilter(**given(args, *(f.name for f in fields(VerdictFilter) if hasattr(args, f.name))))
    store = load_store(args.file, text=True)
    if store.is_counts_table:  # counted groups: no single call, no text to list
        from evalcore.ingest.counts_table import SINGLE_CALLS_NOTE

        raise UsageError(SINGLE_CALLS_NOTE)
    try:
        for answers in args.answers:
            store.attach_answers(answers, name=display_name(answers))
        page = store.verdicts(flt, offset=args.offset, limit=args.limit)
    except ValueError as exc:  # offset/limit out of range: the flag's name, not the argument's
        raise UsageError(str(exc).replace("offset", "--offset").replace("limit", "--limit")) from exc
    finally:
        store.close()
    if args.json:
        return print_json(page.as_dict())
    print(printable(page_headline(page)))
    if not page.has_text:
        print("The file carries no text (prompt, answers, judge output): verdicts only.")
    for case in page.cases:
        print()
        for line in case_lines(case, width=args.width):
            print(printable(line))
    return 0


COMMANDS = (
    Command(
        "verdicts",
        "the cases (judge, instruction, pair; both orders) with their text, filtered and paged",
        run_verdicts,
        (
            "file",
            opt("judge", help="only this judge"),
            opt("--model-a", default=None, help="cases involving this model (with --model-b: the pair)"),
            opt("--model-b", default=None, help="with --model-a: that pair, in either slot order"),
            opt("--instruction", default=None, help="only this instruction_id"),
            "category",
            opt(
                "--verdict",
                choices=VERDICT_KINDS,
                default=None,
                help="cases where some call preferred the first slot, the second, called a tie, or gave none",
            ),
            opt("--flipped", action="store_true", help="only cases whose two orders disagree"),
            opt(
                "--disagrees-with-human",
                action="store_true",
                help="only cases where judge and human disagree",
            ),
            opt("--search", default=None, help="text in the prompt, an answer or the judge's output"),
            opt(
                "--beats-all",
                default=None,
                metavar="MODEL",
                help="only MODEL's cases on the instructions where it beat every model it met",
            ),
            opt(
                "--answers",
                action="append",
                default=[],
                metavar="ANSWER_FILE",
                help="an Arena-Hard-Auto answer file (model_answer/<model>.jsonl) whose answers fill in "
                "those the judgments lack; repeat once per model",
            ),
            opt("--offset", type=int, default=0, help="cases to skip (default 0)"),
            opt("--limit", type=int, default=20, help="cases to show, 1 to 500 (default 20)"),
            opt("--width", type=int, default=160, help="characters of text shown per line (default 160)"),
        ),
    ),
)
