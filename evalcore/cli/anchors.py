"""``anchors``: every model as the anchor: its position, tau with the quadratic and human
rankings, and informativeness (Don-Yehiya et al. 2026, §4)."""

from __future__ import annotations

import argparse

from evalcore import quantities as q
from evalcore.anchors import anchor_sweep
from evalcore.cli.common import (
    SELECTION,
    Command,
    opt,
    print_json,
    print_notes,
    print_table,
    report_unavailable,
    select,
)
from evalcore.errors import DesignError
from evalcore.ingest.reference import human_ranking


def run_anchors(args: argparse.Namespace) -> int:
    human = human_ranking(args.human_ranking) if args.human_ranking else None
    chosen = select(args)
    try:
        sweep = anchor_sweep(chosen.counts(), human_ranking=human, tau=args.tau)
    except DesignError as exc:
        return report_unavailable(args, exc)
    if args.json:
        return print_json(sweep.as_dict())
    tau = "tau-b" if args.tau == "b" else "tau-a"
    print(
        f"judge {chosen.judge}: {len(sweep.models)} models, {sweep.n_instructions:,} instructions, "
        f"design {sweep.design}; Kendall's {tau}; informativeness on the full verdict scale "
        "(verdicts compared within one slot order)"
    )
    print_notes(sweep.notes, err=True)
    columns = ["anchor", "position", "tau_quadratic", "tau_human", "informativeness", "models_ranked"]
    print_table(sweep.table[[*columns, "no_model_wins_share"]])
    print_notes([sweep.needs_all_pairs] if sweep.needs_all_pairs else [], err=True)
    if sweep.recommended:
        print(f"recommended anchor (most informative): {sweep.recommended}")
    if sweep.fit_r2 == sweep.fit_r2:
        print(f"{q.name('tau_all_pairs')} against {q.name('informativeness')}: R² = {sweep.fit_r2:.3f}")
    return 0


COMMANDS = (
    Command(
        "anchors",
        "per-anchor rankings: tau with all pairs and with humans, informativeness",
        run_anchors,
        (
            *SELECTION,
            opt(
                "--human",
                "--human-ranking",
                dest="human_ranking",
                default=None,
                metavar="F",
                help="a human ranking: a file with columns model, score (higher is better), or 'paper' "
                "for the anchor paper's bundled Chatbot Arena Elo of its 22 models",
            ),
            opt("--tau", choices=("a", "b"), default="b", help="Kendall's tau-b (default, scipy's) or tau-a"),
        ),
    ),
)
