"""``anchors``: every model as the anchor: its position, tau with the quadratic and human
rankings, and informativeness (Don-Yehiya et al. 2026, §4)."""

from __future__ import annotations

import argparse
import sys

from evalcore import quantities as q
from evalcore.anchors import anchor_sweep
from evalcore.cli.common import (
    add_json_flag,
    add_selection_arguments,
    print_json,
    print_table,
    select,
)
from evalcore.cli.power import report_unavailable
from evalcore.errors import DesignError
from evalcore.ingest.reference import human_ranking


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "anchors", help="per-anchor rankings: tau with all pairs and with humans, informativeness"
    )
    add_selection_arguments(p)
    p.add_argument(
        "--human",
        "--human-ranking",
        dest="human_ranking",
        default=None,
        metavar="F",
        help="a human ranking: a file with columns model, score (higher is better), or 'paper' "
        "for the anchor paper's bundled Chatbot Arena Elo of its 22 models",
    )
    p.add_argument(
        "--tau", choices=("a", "b"), default="b", help="Kendall's tau-b (default, scipy's) or tau-a"
    )
    add_json_flag(p)
    p.set_defaults(handler=run_anchors)


def run_anchors(args: argparse.Namespace) -> int:

    human = human_ranking(args.human_ranking) if args.human_ranking else None
    chosen = select(args)
    judge, counts = chosen.judge, chosen.counts()
    try:
        sweep = anchor_sweep(counts, human_ranking=human, tau=args.tau)
    except DesignError as exc:
        return report_unavailable(args, exc)
    if args.json:
        print_json(sweep.as_dict())
        return 0
    tau = "tau-b" if args.tau == "b" else "tau-a"
    print(
        f"judge {judge}: {len(sweep.models)} models, {sweep.n_instructions:,} instructions, "
        f"design {sweep.design}; Kendall's {tau}; informativeness on the full verdict scale "
        "(verdicts compared within one slot order)"
    )
    for note in sweep.notes:
        print(f"note: {note}", file=sys.stderr)
    print_table(
        sweep.table[
            [
                "anchor",
                "position",
                "tau_quadratic",
                "tau_human",
                "informativeness",
                "models_ranked",
                "no_model_wins_share",
            ]
        ]
    )
    if sweep.needs_all_pairs:
        print(f"note: {sweep.needs_all_pairs}", file=sys.stderr)
    if sweep.recommended:
        print(f"recommended anchor (most informative): {sweep.recommended}")
    if sweep.fit_r2 == sweep.fit_r2:
        print(f"{q.name('tau_all_pairs')} against {q.name('informativeness')}: R² = {sweep.fit_r2:.3f}")
    return 0
