"""``ties``: tie structure of a pairwise judge, or of a pointwise score table; for a pairwise judge
also the ranking under three tie conventions (a tie as half a win, ties dropped, ties modelled).

References: Gondara, Novikova, Suresh, Ji & Pradeep, "The Format is the Filter: Scoring Format
Fixes What an LLM Judge Can Express" (2025). Davidson, R. R. (1970), "On extending the
Bradley–Terry model to accommodate ties in paired comparison experiments", JASA 65, 317–328.
"""

from __future__ import annotations

import argparse

from evalcore.cli.common import Command, UsageError, opt, print_json, select, show
from evalcore.ingest.files import read_human_ranking
from evalcore.present import ties as page
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
    human = (
        verdict_tie_structure(labelled.judge, labelled.human, score=args.score) if labelled.n_calls else None
    )
    # a reference (the human labels) always yields an agreement
    human_row = {"calls": human.n_calls, **human.agreement.as_dict()} if human and human.agreement else None
    conventions: TieConventions | str | None
    try:  # the ranking under three tie conventions, or why there is none (in words)
        conventions = (
            None if args.no_conventions else tie_conventions(counts, rounds=args.rounds, seed=args.seed)
        )
    except ValueError as exc:
        conventions = str(exc)
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
    show(
        page.calls_sentence(result, judge),
        page.levels_display(result),
        page.level_metrics(result),
        both_bad and [page.both_bad_metrics(both_bad), both_bad.sentence()],
        page.candidate_sentence(result),
        page.human_heading(human) if human is not None else None,
        page.reference_heading(result) if result.agreement is not None else None,
        page.agreement_display(page.agreement_rows(result, human)),
        None
        if human or result.agreement
        else "No reference: no human labels for this judge and no --human-ranking.",
    )
    if isinstance(tc := conventions, TieConventions):
        show("Ties as data:", None if tc.identified else tc.refusal, page.convention_metrics(tc))
        show(tc.sentence(), [f"Note: {note}" for note in tc.notes], page.conventions_display(tc))
    elif tc is not None:
        show("Ties as data:", tc)
    return 0


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
    no_shares = None if len(shares.table) else page.EXPLAIN["no_shares"]
    show(page.table_sentence(table), None if table.has_reference else page.EXPLAIN["no_reference"])
    show(
        page.diagnostics_display(cells),
        no_shares or [page.shares_display(shares), page.shares_sentence(shares)],
    )
    show([f"Note: {note}" for note in shares.notes])
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
