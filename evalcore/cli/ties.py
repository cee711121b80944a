"""``ties``: tie structure of a pairwise judge, or of a pointwise score table; for a pairwise judge
also the ranking under three tie conventions (a tie as half a win, ties dropped, ties modelled).

References: Gondara, Novikova, Suresh, Ji & Pradeep, "The Format is the Filter: Scoring Format
Fixes What an LLM Judge Can Express" (2025). Davidson, R. R. (1970), "On extending the
Bradley–Terry model to accommodate ties in paired comparison experiments", JASA 65, 317–328.
"""

from __future__ import annotations

import argparse

import pandas as pd

from evalcore import quantities as q
from evalcore.cli.common import (
    Command,
    UsageError,
    opt,
    print_json,
    print_notes,
    print_table,
    select,
)
from evalcore.ingest.files import read_human_ranking
from evalcore.ties import (
    SCORE_RULES,
    TieConventions,
    both_bad_share,
    labelled_counts,
    leave_one_judge_out,
    pointwise_tie_structure,
    tie_conventions,
    variance_shares,
    verdict_tie_structure,
)
from evalcore.ties.conventions import ROUNDS


def _nominal(pairs: list[str]) -> dict[str, int]:
    out = {}
    for item in pairs:
        name, _, value = item.rpartition("=")
        try:
            levels = int(value)
        except ValueError:
            levels = 0
        if not name or levels < 1:
            raise UsageError(
                f"--nominal {item!r}: write FORMAT=LEVELS with a positive integer, e.g. likert-5=5"
            )
        out[name] = levels
    return out


def run_ties(args: argparse.Namespace) -> int:
    if args.pointwise:
        return _run_pointwise(args)
    if args.nominal:
        raise UsageError("--nominal applies to pointwise tables (add --pointwise)")
    chosen = select(args)
    store, judge, counts = chosen.store, chosen.judge, chosen.counts()
    if counts.calls == 0:
        raise UsageError(f"judge {judge!r} has no verdicts in this selection")
    ranking = read_human_ranking(args.human_ranking) if args.human_ranking else None
    result = verdict_tie_structure(counts, ranking, score=args.score)
    labelled = labelled_counts(store, judge, category=args.category)
    human_row: dict | None = None
    if labelled.n_calls:
        human = verdict_tie_structure(labelled.judge, labelled.human, score=args.score)
        assert human.agreement is not None  # a reference (the human labels) always yields one
        human_row = {"calls": human.n_calls, **human.agreement.as_dict()}
    conventions = None if args.no_conventions else _conventions(counts, rounds=args.rounds, seed=args.seed)
    both_bad = both_bad_share(store, judge=judge, category=args.category)
    if args.json:
        payload = {
            "judge": judge,
            "structure": result.as_dict(),
            "human_labels": human_row,
            # null: the table keeps no "both bad" mark apart from "tie"
            "both_bad": both_bad.as_dict() if both_bad is not None else None,
        }
        if conventions is not None:
            payload["tie_conventions"] = (
                conventions.as_dict() if isinstance(conventions, TieConventions) else {"refusal": conventions}
            )
        return print_json(payload)
    print(f"judge {judge}: {result.n_calls:,} calls; within-instruction score: {args.score}")
    levels = result.level_table()
    levels["share"] = [f"{100 * v:.1f}%" for v in levels["share"]]  # a share reads as a percentage
    print_table(levels)
    stats = result.stats
    # the app's names and formats (the catalogue), never the paper's symbols
    said = (
        ("same_level_chance", stats.tie_probability),
        ("effective_levels_entropy", stats.d1),
        ("effective_levels_collision", stats.d2),
        ("distinct_levels", stats.distinct),
        ("tie_rate", result.tie_verdict_rate),
    )
    print("; ".join(f"{q.name(qid)} {q.format(qid, value)}" for qid, value in said))
    top = q.format("top_tied_share", result.top_tied)
    print(f"{q.name('top_tied_share')}: {top} of {result.instructions:,} instructions")
    if both_bad is not None:
        print(both_bad.sentence())
    rows = []
    if result.agreement is not None:
        rows.append({"reference": "reference score", "calls": result.n_calls, **result.agreement.as_dict()})
    if human_row is not None:
        rows.append({"reference": "human labels", **human_row})
    if rows:
        frame = pd.DataFrame(rows).drop(columns=["reference_kind"])
        print_table(frame)
    else:
        print("no reference: the file has no human labels for this judge and no --human-ranking")
    if conventions is not None:
        _print_conventions(conventions)
    return 0


def _conventions(counts, *, rounds: int, seed: int) -> TieConventions | str:
    """The tie-convention comparison, or why there is none (in words)."""
    try:
        return tie_conventions(counts, rounds=rounds, seed=seed)
    except ValueError as exc:
        return str(exc)


def _interval_words(tc: TieConventions) -> str:
    return f"{tc.interval}, {tc.rounds:,} rounds" if tc.rounds else tc.interval


def _print_conventions(tc: TieConventions | str) -> None:
    """The ranking under three tie conventions, in the catalogue's names and formats."""
    print("\nties as data: the ranking under three ways of counting a tie (Davidson 1970)")
    if isinstance(tc, str):
        print(tc)
        return
    if tc.identified:
        nu = (
            f"{q.name('tie_parameter')} {q.format('tie_parameter', tc.tie_parameter)} "
            f"(95% interval {q.format('tie_parameter', tc.tie_parameter_low)} – "
            f"{q.format('tie_parameter', tc.tie_parameter_high)}, {_interval_words(tc)}); "
            f"{q.name('tie_chance_equal_models')} {q.format('tie_chance_equal_models', tc.tie_chance_equal)}"
        )
        print(nu)
    else:
        print(tc.refusal)
    head = tc.headline
    print(
        f"{q.name('models_moved_by_ties')} {q.format('models_moved_by_ties', head.models_moved)}; "
        f"{q.name('largest_tie_move')} {q.format('largest_tie_move', head.largest_move)}; "
        f"{q.name('convention_tau')} {q.format('convention_tau', head.tau)} "
        "(ties modelled against a tie as half a win)"
    )
    print(tc.sentence())
    print_table(tc.frame())
    print_notes(tc.notes)


def _run_pointwise(args: argparse.Namespace) -> int:
    from evalcore.ingest.pointwise import read_pointwise

    if args.category is not None or args.human_ranking is not None:
        raise UsageError(
            "--category and --human-ranking apply to verdict tables; a pointwise "
            "table carries its reference in its 'reference' column"
        )
    table = read_pointwise(args.file)
    frame = table.frame
    if args.judge is not None:
        if args.judge not in set(frame["judge"]):
            raise UsageError(
                f"judge {args.judge!r} is not in the file; its judges are: "
                + ", ".join(sorted(set(frame["judge"])))
            )
        frame = frame[frame["judge"] == args.judge]
    if frame["score"].notna().sum() == 0:
        raise UsageError("no row of this table has a score")
    cells = pointwise_tie_structure(frame, nominal_levels=_nominal(args.nominal) or None)
    shares = variance_shares(cells)
    loo = leave_one_judge_out(cells) if len(shares.judges) >= 3 else None
    if args.json:
        out = {"file": table.file, "cells": cells, "variance_shares": shares.as_dict()}
        return print_json({**out, "leave_one_judge_out": loo})
    print(
        f"{table.file}: {len(frame):,} rows, {frame['format'].nunique()} format(s), "
        f"{frame['judge'].nunique()} judge(s)" + ("" if table.has_reference else "; no reference")
    )
    print_table(cells)
    if len(shares.table):
        print("\nshares of variance over the format × judge grid (Gondara et al. 2026):")
        print_table(shares.table)
    print_notes(shares.notes)
    return 0


COMMANDS = (
    Command(
        "ties",
        "tie structure: how the verdicts spread over the levels, the same-level chance, the "
        "effective number of levels, the share of instructions with a tied top, and agreement with "
        "a reference (Gondara et al. 2025)",
        run_ties,
        (
            "file",
            "judge",
            opt("category", help="only rows of this category (verdict tables)"),
            opt(
                "--score",
                choices=SCORE_RULES,
                default="soft",
                help="within-instruction score of a pairwise judge: soft = mean logistic of the verdict "
                "(the tournament score of 'The Format is the Filter', default), "
                "sign = win share (tie = half)",
            ),
            opt(
                "--rounds",
                type=int,
                default=ROUNDS,
                help=f"bootstrap rounds over instructions for the tie parameter's 95%% interval (default {ROUNDS}; "
                "0 = the profile-likelihood interval, which treats verdicts as independent)",
            ),
            opt("seed", help="seed of the bootstrap (default 0)"),
            opt(
                "--no-conventions",
                action="store_true",
                help="skip the ranking under three tie conventions (a tie as half a win, ties dropped, "
                "ties modelled by Davidson 1970)",
            ),
            opt("human_ranking", help="a reference score per model (model, score; higher is better)"),
            opt(
                "--pointwise",
                action="store_true",
                help="FILE is a pointwise score table: instruction_id, candidate, judge, format, score[, reference]",
            ),
            opt(
                "--nominal",
                action="append",
                default=[],
                metavar="FORMAT=LEVELS",
                help="nominal levels of a pointwise format (e.g. binary=2); repeatable; adds D2 / nominal levels",
            ),
        ),
    ),
)
