"""``anchors``: every model as the anchor: its position, tau with the all-pairs and human
rankings, and informativeness (Don-Yehiya et al. 2026)."""

from __future__ import annotations

import argparse

from evalcore.anchors import anchor_sweep
from evalcore.cli.common import (
    SELECTION,
    Command,
    opt,
    print_json,
    print_notes,
    report_unavailable,
    select,
    show,
)
from evalcore.errors import DesignError
from evalcore.ingest.reference import human_ranking
from evalcore.present import anchors as page


def run_anchors(args: argparse.Namespace) -> int:
    human = human_ranking(args.human_ranking) if args.human_ranking else None
    chosen = select(args)
    try:
        sweep = anchor_sweep(chosen.counts(), human_ranking=human, tau=args.tau)
    except DesignError as exc:
        return report_unavailable(args, exc)
    if args.json:
        return print_json(sweep.as_dict())
    show(
        f"Judge {chosen.judge}: {len(sweep.models)} models, {sweep.n_instructions:,} instructions, design {sweep.design}."
    )
    print_notes([*sweep.notes, *([sweep.needs_all_pairs] if sweep.needs_all_pairs else [])])
    show(page.sweep_table(sweep), page.sweep_caption(sweep, args.tau))
    show([f"{label}: {value} — {why}" for label, value, why in page.recommended_metrics(sweep, args.tau)])
    show(page.all_pairs_human_caption(sweep, args.tau), page.fit_caption(sweep, args.tau))
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
