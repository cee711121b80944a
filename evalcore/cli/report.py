"""``report``: write the self-contained HTML stakeholder report of a verdict file."""

from __future__ import annotations

import argparse
from pathlib import Path

from evalcore.cli.common import (
    Command,
    UsageError,
    display_name,
    given,
    opt,
    print_json,
    print_notes,
    same_file,
    select,
)
from evalcore.findings import headline_findings, run_analyses
from evalcore.ingest.files import read_human_ranking
from evalcore.ingest.reference import PAPER, human_ranking
from evalcore.report import build_report
from evalcore.text import fmt_bytes


def run_report(args: argparse.Namespace) -> int:
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
    for flag, source in inputs:
        if same_file(output, source):
            raise UsageError(
                f"--output {output} is the input {flag} {source}: the report would overwrite it; "
                "give another file name such as report.html"
            )
    chosen = select(args, text=True)  # style control counts Markdown in the answers
    human = None
    if args.human_ranking and args.human_ranking.strip().lower() == PAPER:
        human = human_ranking(PAPER)
    elif args.human_ranking:
        human = read_human_ranking(args.human_ranking, name=display_name(args.human_ranking))
    analyses = run_analyses(
        chosen.store,
        judge=chosen.judge,
        human_ranking=human,
        rounds=args.bootstrap,
        **given(args, "seed", "compare_judges"),
    )
    findings = headline_findings(analyses)
    document = build_report(analyses, findings)
    try:
        output.write_text(document, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from exc
    size = output.stat().st_size
    if args.json:
        unavailable = dict(analyses.unavailable)
        return print_json(
            {"output": str(output), "bytes": size, **findings.as_dict(), "unavailable": unavailable}
        )
    print(f"wrote {output} ({fmt_bytes(size)}): {findings.dataset}, judge {findings.judge}")
    for finding in findings.findings:
        print(f"- {finding.title}: {finding.text}")
    print_notes((f"{area}: {reason}" for area, reason in analyses.unavailable.items()))
    return 0


COMMANDS = (
    Command(
        "report",
        "write a self-contained HTML report (opens offline)",
        run_report,
        (
            "file",
            "judge",
            opt(
                "human_ranking",
                help="a human ranking (model, score; higher is better) for the anchor sweep, or 'paper' "
                "for the anchor paper's bundled Chatbot Arena Elo",
            ),
            opt(
                "-o",
                "--output",
                default="report.html",
                metavar="FILE",
                help="where to write the HTML report (default: report.html)",
            ),
            opt(
                "bootstrap",
                default=1000,
                help="bootstrap rounds over instructions for the leaderboard (default 1000)",
            ),
            "seed",
            opt(
                "--compare-judges",
                action=argparse.BooleanOptionalAction,
                default=True,
                help="add every judge's spec sheet to the report when the file has several "
                "(default: yes; --no-compare-judges for the chosen judge only)",
            ),
        ),
    ),
)
