"""``report``: write the self-contained HTML stakeholder report of a verdict file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from evalcore.cli.common import (
    add_file_argument,
    add_json_flag,
    add_judge_argument,
    display_name,
    load_store,
    pick_judge,
    print_json,
    same_file,
)
from evalcore.findings import headline_findings, run_analyses
from evalcore.ingest.files import read_human_ranking
from evalcore.ingest.reference import PAPER, human_ranking
from evalcore.report import build_report
from evalcore.text import fmt_bytes


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="write a self-contained HTML report (opens offline)")
    add_file_argument(p)
    add_judge_argument(p)
    p.add_argument(
        "--human-ranking",
        default=None,
        metavar="FILE",
        help="a human ranking (model, score; higher is better) for the anchor sweep, or 'paper' "
        "for the anchor paper's bundled Chatbot Arena Elo",
    )
    p.add_argument(
        "-o",
        "--output",
        default="report.html",
        metavar="FILE",
        help="where to write the HTML report (default: report.html)",
    )
    p.add_argument(
        "--bootstrap",
        type=int,
        default=1000,
        help="bootstrap rounds over instructions for the leaderboard (default 1000)",
    )
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument(
        "--compare-judges",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="add every judge's spec sheet to the report when the file has several "
        "(default: yes; --no-compare-judges for the chosen judge only)",
    )
    add_json_flag(p)
    p.set_defaults(handler=run_report)


def run_report(args: argparse.Namespace) -> int:
    from evalcore.cli.common import UsageError

    if args.bootstrap < 1:
        raise UsageError("--bootstrap must be at least 1 (the report shows intervals)")
    output = Path(args.output)
    if output.is_dir():
        raise UsageError(f"--output {output} is a directory; give a file name such as report.html")
    if not output.parent.exists():
        raise UsageError(f"cannot write {output}: the folder {output.parent} does not exist")
    inputs = [("FILE", args.file)]
    if args.human_ranking and args.human_ranking.strip().lower() != PAPER:
        inputs.append(("--human-ranking", args.human_ranking))
    for flag, given in inputs:
        if same_file(output, given):
            raise UsageError(
                f"--output {output} is the input {flag} {given}: the report would overwrite it; "
                "give another file name such as report.html"
            )
    store = load_store(args.file, text=True)  # style control counts Markdown in the answers
    judge = pick_judge(store, args.judge)
    human = None
    if args.human_ranking and args.human_ranking.strip().lower() == PAPER:
        human = human_ranking(PAPER)
    elif args.human_ranking:
        human = read_human_ranking(args.human_ranking, name=display_name(args.human_ranking))
    analyses = run_analyses(
        store,
        judge=judge,
        human_ranking=human,
        rounds=args.bootstrap,
        seed=args.seed,
        compare_judges=args.compare_judges,
    )
    findings = headline_findings(analyses)
    document = build_report(analyses, findings)
    try:
        output.write_text(document, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from exc
    size = output.stat().st_size
    if args.json:
        print_json(
            {
                "output": str(output),
                "bytes": size,
                **findings.as_dict(),
                "unavailable": dict(analyses.unavailable),
            }
        )
        return 0
    print(f"wrote {output} ({fmt_bytes(size)}): {findings.dataset}, judge {findings.judge}")
    for finding in findings.findings:
        print(f"- {finding.title}: {finding.text}")
    for area, reason in analyses.unavailable.items():
        print(f"note: {area}: {reason}", file=sys.stderr)
    return 0
