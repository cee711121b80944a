"""``calibrate``, ``floor``, ``gate``, ``ppi`` and ``certify``: the corrected win rate, the floor
table, release gates, prediction-powered ratings and judge certification.

The printed win rate is compressed toward 50%; a labelled comparison corrects it (Rogan–Gladen,
Lang–Reiczigel interval) at a price set by Youden's J; gates say which number they rest on and what
it estimates. The unit follows the table (the both-orders verdict on a table judged in both
orders, so each human label counts once) unless ``--unit`` says otherwise. ``gate`` exits 0 when
the gate passes, 1 when it fails or cannot decide (and says why), 2 on bad input; ``certify`` likewise exits 0 when
the judge is certified and 1 when it is not. ``ppi`` combines the judge's verdicts on every pair
with the human labels into Bradley–Terry ratings (PPI++, Angelopoulos et al. 2023).
"""

from __future__ import annotations

import argparse

from evalcore.calibration import (
    DEFAULT_MAX_FLOOR,
    FLOOR_SIZES,
    FLOOR_TRUE_SHARE,
    SAME_SLICE,
    calibrate,
    floor_table,
    noninferiority_gate,
    ppi_gate,
    size_plan,
    superiority_gate,
)
from evalcore.calibration.counts import _SameSlice
from evalcore.calibration.ppi import MIN_LABELLED, ppi_ratings
from evalcore.cli.common import (
    Command,
    UsageError,
    given,
    opt,
    pick_category,
    print_json,
    select,
    show,
)
from evalcore.judge.certification import DEFAULT_THRESHOLD, certify_judge
from evalcore.present import calibration as page


def _calibration(args: argparse.Namespace):
    chosen = select(args)  # --max-floor is checked by its range
    labelled: str | None | _SameSlice = SAME_SLICE
    if args.labelled_category is not None:
        labelled = None if args.labelled_category.lower() == "all" else args.labelled_category
    if isinstance(labelled, str):
        pick_category(chosen.store, labelled)
    if args.both_orders and args.unit not in (None, "both-orders"):
        raise UsageError("--both-orders and --unit call contradict each other; give one of them")
    unit = "both-orders" if args.both_orders else (args.unit or "auto")
    both_orders = {"auto": None, "both-orders": True, "call": False}[unit]
    if both_orders and args.candidate is None:
        raise UsageError(
            "the both-orders verdict needs --candidate: slot A changes sides between the two orders"
        )
    return calibrate(
        chosen.store,
        judge=chosen.judge,
        labelled_category=labelled,
        both_orders=both_orders,
        max_floor=args.max_floor / 100.0,
        **given(args, "candidate", "baseline", "category", "rounds", "seed"),
    )


def run_calibrate(args: argparse.Namespace) -> int:
    cal = _calibration(args)
    if args.json:
        return print_json(cal.as_dict())
    show(page.headline(cal), page.correction_caption(cal), page.summary_display(cal))
    show(page.correction_message(cal), page.correction_notes(cal))
    return 0


def run_floor(args: argparse.Namespace) -> int:
    table = floor_table(args.labelled, args.youden, true_share=args.true_share)
    plans = []
    if args.target is not None:
        if not args.target < 50:  # the range allows 50
            raise UsageError("--target is a half-width in points, between 0 and 50")
        plans = [
            size_plan(args.target / 100.0, j, true_share=args.true_share, max_labelled=args.max_labelled)
            for j in args.youden
        ]
    if args.json:
        payload = {
            "definition": "Lang-Reiczigel half-width with unlimited judged pairs; sensitivity and specificity each half of one plus Youden's J, "
            "labelled pairs split evenly, pseudo-counts applied (Lang and Reiczigel 2014)",
            "true_share": args.true_share,
            "rows": table,
        }
        if plans:
            payload["plans"] = [{k: v for k, v in p.as_dict().items() if k != "ladder"} for p in plans]
        return print_json(payload)
    head = "Floor (± percentage points) with unlimited judged pairs, by labelled pairs and Youden's J:"
    show(head, page.floor_display(table), [plan.explanation for plan in plans])
    return 0


def run_gate(args: argparse.Namespace) -> int:
    kind = args.kind or ("noninferiority" if args.margin is not None else "superiority")
    if kind == "superiority" and args.margin is not None:
        raise UsageError("--margin applies to a non-inferiority gate; drop it or use --kind noninferiority")
    if args.baseline is None:
        raise UsageError("gate needs --baseline: the model the candidate must beat or not fall behind")
    if args.ppi and args.corrected:
        raise UsageError("--ppi and --corrected name two different numbers to gate on; give one")
    margin = 0.05 if args.margin is None else args.margin  # a non-inferiority gate's default
    if args.ppi:
        chosen = select(args)
        ratings = ppi_ratings(chosen.store, judge=chosen.judge, category=chosen.category)
        margin = 0.0 if kind == "superiority" else margin
        result = ppi_gate(ratings, args.candidate, args.baseline, kind=kind, margin=margin)
    elif kind == "superiority":
        result = superiority_gate(_calibration(args), corrected=args.corrected)
    else:
        result = noninferiority_gate(_calibration(args), margin=margin, corrected=args.corrected)
    code = 0 if result.passed else 1
    if args.json:
        return print_json(result.as_dict(), code)
    verdict, *rest = page.gate_messages(result)
    # the verdict leads as it is, not as a "warning:" line: a script reads its first word
    show(verdict.text, rest, result.design_warnings if result.determined else None)
    return code


def run_ppi(args: argparse.Namespace) -> int:
    cluster = None if args.cluster == "instruction" else args.cluster
    # --lam and --min-labelled are checked by their ranges; unit columns are kept with the text
    chosen = select(args, text=cluster is not None)
    how = given(args, "lam", "min_labelled")
    result = ppi_ratings(chosen.store, judge=chosen.judge, category=chosen.category, cluster=cluster, **how)
    if args.json:
        return print_json(result.as_dict())
    show(
        f"Judge {chosen.judge}: labelled pairs on {result.n_labelled_instructions:,} {result.cluster}s; "
        f"Elo points, 95% intervals clustered by {result.cluster}.",
        page.ppi_table(result),
        page.ppi_messages(result),
    )
    return 0


def run_certify(args: argparse.Namespace) -> int:
    chosen = select(args)  # --threshold is checked by its range, --candidate by the library
    judge = chosen.judge
    cert = certify_judge(chosen.store, judge, **given(args, "candidate", "category", "threshold"))
    code = 0 if cert.certified else 1
    if args.json:
        return print_json(cert.as_dict(), code)
    show(f"Judge {judge}: {cert.sentence()}", cert.note and f"Note: {cert.note}")
    return code


def _calibration_options(*, candidate_required: bool) -> tuple:
    """The options of the commands that calibrate a win rate (``calibrate``, ``gate``)."""
    return (
        "file",
        "judge",
        opt(
            "candidate",
            required=candidate_required,
            help="the model whose win rate is calibrated"
            + ("" if candidate_required else " (default: slot A)"),
        ),
        opt(
            "--baseline", default=None, help="only its comparisons with this model (default: every opponent)"
        ),
        opt("category", help="correct only the rows of this category"),
        opt(
            "--labelled-category",
            default=None,
            help="measure sensitivity and specificity on the labelled rows of this category (default: the same rows "
            "as --category; 'all' for every category)",
        ),
        opt(
            "--unit",
            choices=("auto", "both-orders", "call"),
            default=None,
            help="what one unit is: the both-orders verdict (one per pair judged in both "
            "orders: the verdict both orders agree on, else a tie; needs --candidate), one "
            "judge call, or auto (default): the both-orders verdict when the table is "
            "judged in both orders and a candidate is named",
        ),
        opt("--both-orders", action="store_true", help="the same as --unit both-orders"),
        opt(
            "--rounds",
            type=int,
            default=2000,
            help="bootstrap draws over instructions for the corrected win rate (default 2000)",
        ),
        opt("seed", help="seed of the bootstrap (default 0)"),
        opt(
            "--max-floor",
            type=float,
            default=100 * DEFAULT_MAX_FLOOR,
            help="refuse to correct when the floor is wider than this many points "
            f"(default {100 * DEFAULT_MAX_FLOOR:.0f})",
        ),
    )


COMMANDS = (
    Command(
        "calibrate",
        "the judge's sensitivity and specificity on labelled rows, printed vs corrected win rate",
        run_calibrate,
        _calibration_options(candidate_required=False),
    ),
    Command(
        "floor",
        "the floor table: narrowest corrected interval per labelled size and J",
        run_floor,
        (
            opt(
                "--labelled",
                type=int,
                nargs="+",
                default=list(FLOOR_SIZES),
                metavar="N",
                help="labelled-set sizes (default: 25 100 400 1600)",
            ),
            opt(
                "--youden",
                type=float,
                nargs="+",
                required=True,
                metavar="J",
                help="Youden's J values (sensitivity plus specificity minus one), e.g. 0.57",
            ),
            opt(
                "--true-share",
                type=float,
                default=FLOOR_TRUE_SHARE,
                help=f"true share the floor is read at (default {FLOOR_TRUE_SHARE})",
            ),
            opt(
                "--target",
                type=float,
                default=None,
                metavar="POINTS",
                help="also plan the labelled and judged pairs for this half-width (points)",
            ),
            opt(
                "--max-labelled",
                type=int,
                default=1600,
                help="the most labelled pairs the plan may ask for (default 1600)",
            ),
        ),
    ),
    Command(
        "gate",
        "superiority / non-inferiority gate; exit 1 when it fails or cannot decide",
        run_gate,
        (
            *_calibration_options(candidate_required=True),
            opt(
                "--kind",
                choices=("superiority", "noninferiority"),
                default=None,
                help="default: noninferiority when --margin is given, else superiority",
            ),
            opt(
                "--margin",
                type=float,
                default=None,
                help="non-inferiority margin as a share, e.g. 0.05 for 5 points (default 0.05)",
            ),
            opt(
                "--corrected",
                action="store_true",
                help="gate on the corrected win rate (human wins plus half the human ties, both arms corrected, "
                "bootstrap lower bound) instead of the printed one",
            ),
            opt(
                "--ppi",
                action="store_true",
                help="gate on the prediction-powered ratings instead: P(human prefers the candidate to the "
                "baseline) from their rating gap (judge on every pair, corrected by the human labels)",
            ),
        ),
    ),
    Command(
        "ppi",
        "prediction-powered Bradley–Terry ratings: the judge on every pair plus human labels",
        run_ppi,
        (
            "file",
            "judge",
            opt("category", help="only the rows of this category"),
            opt(
                "--lam",
                type=float,
                default=None,
                help="weight on the judge, 0..1 (default: chosen by PPI++; 0 = human labels only)",
            ),
            opt(
                "--min-labelled",
                type=int,
                default=MIN_LABELLED,
                help=f"refuse with fewer labelled pairs (default {MIN_LABELLED})",
            ),
            opt(
                "--cluster",
                default="instruction",
                metavar="COLUMN",
                help="the sandwich's cluster: instruction (default), or the file's session, voter or run column",
            ),
        ),
    ),
    Command(
        "certify",
        "certify a judge: agreement with humans on wins and non-wins; exit 1 when not",
        run_certify,
        (
            "file",
            "judge",
            opt(
                "candidate",
                help="read wins from this model's point of view (default: slot A's, every call a unit)",
            ),
            opt("category", help="only the rows of this category"),
            opt(
                "--threshold",
                type=float,
                default=DEFAULT_THRESHOLD,
                help=f"each class's lower 95%% Wilson bound must reach it (default {DEFAULT_THRESHOLD})",
            ),
        ),
    ),
)
