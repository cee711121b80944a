"""``verdicts``: the cases behind the numbers, with their prompt, answers and the judge's text."""

from __future__ import annotations

import argparse

from evalcore.cli.common import add_file_argument, add_json_flag, display_name, load_store, print_json
from evalcore.present.verdict_words import case_lines, page_headline
from evalcore.verdicts import VERDICT_KINDS, VerdictFilter


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "verdicts",
        help="the cases (judge, instruction, pair; both orders) with their text, filtered and paged",
    )
    add_file_argument(p)
    p.add_argument("--judge", default=None, help="only this judge")
    p.add_argument("--model-a", default=None, help="cases involving this model (with --model-b: the pair)")
    p.add_argument("--model-b", default=None, help="with --model-a: that pair, in either slot order")
    p.add_argument("--instruction", default=None, help="only this instruction_id")
    p.add_argument("--category", default=None, help="only rows of this category")
    p.add_argument(
        "--verdict",
        choices=VERDICT_KINDS,
        default=None,
        help="cases where some call preferred the first slot, the second, called a tie, or gave none",
    )
    p.add_argument("--flipped", action="store_true", help="only cases whose two orders disagree")
    p.add_argument(
        "--disagrees-with-human", action="store_true", help="only cases where judge and human disagree"
    )
    p.add_argument("--search", default=None, help="text in the prompt, an answer or the judge's output")
    p.add_argument(
        "--beats-all",
        default=None,
        metavar="MODEL",
        help="only MODEL's cases on the instructions where it beat every model it met",
    )
    p.add_argument(
        "--answers",
        action="append",
        default=[],
        metavar="ANSWER_FILE",
        help="an Arena-Hard-Auto answer file (model_answer/<model>.jsonl) whose answers fill in "
        "those the judgments lack; repeat once per model",
    )
    p.add_argument("--offset", type=int, default=0, help="cases to skip (default 0)")
    p.add_argument("--limit", type=int, default=20, help="cases to show, 1 to 500 (default 20)")
    p.add_argument("--width", type=int, default=160, help="characters of text shown per line (default 160)")
    add_json_flag(p)
    p.set_defaults(handler=run_verdicts)


def run_verdicts(args: argparse.Namespace) -> int:
    from evalcore.cli.common import UsageError, printable

    if args.width < 10:
        raise UsageError("--width must be 10 or more")
    flt = VerdictFilter(
        judge=args.judge,
        model_a=args.model_a,
        model_b=args.model_b,
        instruction=args.instruction,
        category=args.category,
        verdict=args.verdict,
        flipped=args.flipped,
        disagrees_with_human=args.disagrees_with_human,
        search=args.search,
        beats_all=args.beats_all,
    )
    store = load_store(args.file, text=True)
    if store.is_counts_table:  # counted groups: no single call, no text to list
        from evalcore.cli import UsageError
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
        print_json(page.as_dict())
        return 0
    print(printable(page_headline(page)))
    if not page.has_text:
        print("The file carries no text (prompt, answers, judge output): verdicts only.")
    for case in page.cases:
        print()
        for line in case_lines(case, width=args.width):
            print(printable(line))
    return 0
