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
    add_file_argument,
    add_json_flag,
    add_judge_argument,
    load_store,
    pick_category,
    pick_judge,
    print_json,
    print_table,
)
from evalcore.judge.certification import DEFAULT_THRESHOLD, certify_judge
from evalcore.present.display import catalogue_table


def _selection_arguments(p: argparse.ArgumentParser, *, candidate_required: bool) -> None:
    add_judge_argument(p)
    p.add_argument(
        "--candidate",
        required=candidate_required,
        default=None,
        help="the model whose win rate is calibrated" + ("" if candidate_required else " (default: slot A)"),
    )
    p.add_argument(
        "--baseline", default=None, help="only its comparisons with this model (default: every opponent)"
    )
    p.add_argument("--category", default=None, help="correct only the rows of this category")
    p.add_argument(
        "--labelled-category",
        default=None,
        help="measure Se/Sp on the labelled rows of this category (default: the same rows "
        "as --category; 'all' for every category)",
    )
    p.add_argument(
        "--unit",
        choices=("auto", "both-orders", "call"),
        default=None,
        help="what one unit is: the both-orders verdict (one per pair judged in both "
        "orders: the verdict both orders agree on, else a tie; needs --candidate), one "
        "judge call, or auto (default): the both-orders verdict when the table is "
        "judged in both orders and a candidate is named",
    )
    p.add_argument("--both-orders", action="store_true", help="the same as --unit both-orders")
    p.add_argument(
        "--rounds",
        type=int,
        default=2000,
        help="bootstrap draws over instructions for the corrected win rate (default 2000)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    p.add_argument(
        "--max-floor",
        type=float,
        default=100 * DEFAULT_MAX_FLOOR,
        help="refuse to correct when the floor is wider than this many points "
        f"(default {100 * DEFAULT_MAX_FLOOR:.0f})",
    )


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("calibrate", help="judge Se/Sp on labelled rows, printed vs corrected win rate")
    add_file_argument(p)
    _selection_arguments(p, candidate_required=False)
    add_json_flag(p)
    p.set_defaults(handler=run_calibrate)

    p = sub.add_parser("floor", help="the floor table: narrowest corrected interval per labelled size and J")
    p.add_argument(
        "--labelled",
        type=int,
        nargs="+",
        default=list(FLOOR_SIZES),
        metavar="N",
        help="labelled-set sizes (default: 25 100 400 1600)",
    )
    p.add_argument(
        "--youden",
        type=float,
        nargs="+",
        required=True,
        metavar="J",
        help="Youden's J values (Se + Sp - 1), e.g. 0.57",
    )
    p.add_argument(
        "--true-share",
        type=float,
        default=FLOOR_TRUE_SHARE,
        help=f"true share the floor is read at (default {FLOOR_TRUE_SHARE})",
    )
    p.add_argument(
        "--target",
        type=float,
        default=None,
        metavar="POINTS",
        help="also plan the labelled and judged pairs for this half-width (points)",
    )
    p.add_argument(
        "--max-labelled",
        type=int,
        default=1600,
        help="the most labelled pairs the plan may ask for (default 1600)",
    )
    add_json_flag(p)
    p.set_defaults(handler=run_floor)

    p = sub.add_parser(
        "gate", help="superiority / non-inferiority gate; exit 1 when it fails or cannot decide"
    )
    add_file_argument(p)
    _selection_arguments(p, candidate_required=True)
    p.add_argument(
        "--kind",
        choices=("superiority", "noninferiority"),
        default=None,
        help="default: noninferiority when --margin is given, else superiority",
    )
    p.add_argument(
        "--margin",
        type=float,
        default=None,
        help="non-inferiority margin as a share, e.g. 0.05 for 5 points (default 0.05)",
    )
    p.add_argument(
        "--corrected",
        action="store_true",
        help="gate on the corrected win rate (human wins + ties/2, both arms corrected, "
        "bootstrap lower bound) instead of the printed one",
    )
    p.add_argument(
        "--ppi",
        action="store_true",
        help="gate on the prediction-powered ratings instead: P(human prefers the candidate to the "
        "baseline) from their rating gap (judge on every pair, corrected by the human labels)",
    )
    add_json_flag(p)
    p.set_defaults(handler=run_gate)

    p = sub.add_parser(
        "ppi", help="prediction-powered Bradley–Terry ratings: the judge on every pair plus human labels"
    )
    add_file_argument(p)
    add_judge_argument(p)
    p.add_argument("--category", default=None, help="only the rows of this category")
    p.add_argument(
        "--lam",
        type=float,
        default=None,
        help="weight on the judge, 0..1 (default: chosen by the PPI++ formula; 0 = human labels only)",
    )
    p.add_argument(
        "--min-labelled",
        type=int,
        default=MIN_LABELLED,
        help=f"refuse with fewer labelled pairs (default {MIN_LABELLED})",
    )
    p.add_argument(
        "--cluster",
        default="instruction",
        metavar="COLUMN",
        help="the sandwich's cluster: instruction (default), or the file's session, voter or run column",
    )
    add_json_flag(p)
    p.set_defaults(handler=run_ppi)

    p = sub.add_parser(
        "certify", help="certify a judge: agreement with humans on wins and non-wins; exit 1 when not"
    )
    add_file_argument(p)
    add_judge_argument(p)
    p.add_argument(
        "--candidate",
        default=None,
        help="read wins from this model's point of view (default: slot A's, every call a unit)",
    )
    p.add_argument("--category", default=None, help="only the rows of this category")
    p.add_argument(
        "--threshold",
        type=float,
        default=DEFAULT_THRESHOLD,
        help=f"each class's lower 95%% Wilson bound must reach it (default {DEFAULT_THRESHOLD})",
    )
    add_json_flag(p)
    p.set_defaults(handler=run_certify)


def _calibration(args: argparse.Namespace):
    from evalcore.cli.common import UsageError

    if not 0 < args.max_floor <= 50:
        raise UsageError("--max-floor is in points, between 0 and 50 (e.g. 20 for ±20 points)")
    store = load_store(args.file)
    judge = pick_judge(store, args.judge)
    labelled: str | None | _SameSlice = SAME_SLICE
    if args.labelled_category is not None:
        labelled = None if args.labelled_category.lower() == "all" else args.labelled_category
    pick_category(store, args.category)
    if isinstance(labelled, str):
        pick_category(store, labelled)
    if args.both_orders and args.unit not in (None, "both-orders"):
        raise UsageError("--both-orders and --unit call contradict each other; give one of them")
    unit = "both-orders" if args.both_orders else (args.unit or "auto")
    both_orders = {"auto": None, "both-orders": True, "call": False}[unit]
    if both_orders and args.candidate is None:
        raise UsageError(
            "the both-orders verdict needs --candidate: slot A changes sides between the two orders"
        )
    if not 1 <= args.rounds <= 100_000:
        raise UsageError("--rounds must be between 1 and 100,000")
    return calibrate(
        store,
        judge=judge,
        candidate=args.candidate,
        baseline=args.baseline,
        category=args.category,
        labelled_category=labelled,
        both_orders=both_orders,
        max_floor=args.max_floor / 100.0,
        rounds=args.rounds,
        seed=args.seed,
    )


def run_calibrate(args: argparse.Namespace) -> int:
    cal = _calibration(args)
    if args.json:
        print_json(cal.as_dict())
        return 0
    c = cal.counts
    unit = (
        f"both-orders verdicts (one per human label), {c.unpaired_calls:,} unpaired calls left out"
        if c.both_orders
        else "one per judge call"
    )
    print(
        f"judge {cal.judge}, candidate {cal.candidate_label}: {c.n_judged:,} judged units, "
        f"{c.n_labelled:,} labelled ({c.n_se:,} human wins, {c.n_sp:,} non-wins); units: {unit}"
    )
    columns = [("quantity", "quantity", None), *((c, c, "pct1") for c in ("estimate", "low", "high"))]
    print_table(catalogue_table(cal.summary_frame(), [*columns, ("definition", "definition", None)]))
    if cal.refused:
        print(f"correction refused: {cal.refusal_reason}")
    elif cal.win_rate_refusal:
        print(f"corrected win rate (both arms) refused: {cal.win_rate_refusal}")
    if cal.transfer_warning:
        print(f"warning: {cal.transfer_warning}")
    for note in cal.design_warnings:
        print(f"note: {note}")
    return 0


def run_floor(args: argparse.Namespace) -> int:
    from evalcore.cli.common import UsageError

    if not 0 < args.true_share < 1:
        raise UsageError("--true-share is a share between 0 and 1")
    table = floor_table(args.labelled, args.youden, true_share=args.true_share)
    plans = []
    if args.target is not None:
        if not 0 < args.target < 50:
            raise UsageError("--target is a half-width in points, between 0 and 50")
        if args.max_labelled < 1:
            raise UsageError("--max-labelled must be 1 or more")
        plans = [
            size_plan(args.target / 100.0, j, true_share=args.true_share, max_labelled=args.max_labelled)
            for j in args.youden
        ]
    if args.json:
        payload = {
            "definition": "Lang-Reiczigel half-width with unlimited judged pairs; Se = Sp = (1 + J)/2, "
            "labelled pairs split evenly, pseudo-counts applied (Lang and Reiczigel 2014)",
            "true_share": args.true_share,
            "rows": table,
        }
        if plans:
            payload["plans"] = [{k: v for k, v in p.as_dict().items() if k != "ladder"} for p in plans]
        print_json(payload)
        return 0
    wide = table.pivot(index="n_labelled", columns="youden_j", values="floor_points")
    wide.columns = [f"J={j:.2f}" for j in wide.columns]
    print("floor (± points) with unlimited judged pairs, by labelled pairs and Youden's J:")
    print_table(wide.reset_index(), floatfmt="{:.1f}")
    for plan in plans:
        print(plan.explanation)
    return 0


def run_gate(args: argparse.Namespace) -> int:
    from evalcore.cli.common import UsageError

    kind = args.kind or ("noninferiority" if args.margin is not None else "superiority")
    if kind == "superiority" and args.margin is not None:
        raise UsageError("--margin applies to a non-inferiority gate; drop it or use --kind noninferiority")
    if args.margin is not None and not 0 <= args.margin < 0.5:
        raise UsageError("--margin is a share between 0 and 0.5, e.g. 0.05 for 5 points")
    if args.baseline is None:
        raise UsageError("gate needs --baseline: the model the candidate must beat or not fall behind")
    if args.ppi and args.corrected:
        raise UsageError("--ppi and --corrected name two different numbers to gate on; give one")
    if args.ppi:
        store = load_store(args.file)
        _check_category(store, args.category)
        ratings = ppi_ratings(store, judge=pick_judge(store, args.judge), category=args.category)
        margin = 0.0 if kind == "superiority" else (0.05 if args.margin is None else args.margin)
        result = ppi_gate(ratings, args.candidate, args.baseline, kind=kind, margin=margin)
    elif kind == "superiority":
        cal = _calibration(args)
        result = superiority_gate(cal, corrected=args.corrected)
    else:
        cal = _calibration(args)
        margin = 0.05 if args.margin is None else args.margin
        result = noninferiority_gate(cal, margin=margin, corrected=args.corrected)
    if args.json:
        print_json(result.as_dict())
    else:
        print(f"{result.verdict}: {result.explanation}")
        if result.warning:
            print(f"note: {result.warning}")
        for note in result.design_warnings:
            print(f"note: {note}")
    return 0 if result.passed else 1


def _check_category(store, category: str | None) -> None:
    from evalcore.cli.common import UsageError

    if category is not None and category not in store.categories():
        cats = ", ".join(store.categories()) or "none"
        raise UsageError(f"category {category!r} is not in the file; its categories are: {cats}")


def run_ppi(args: argparse.Namespace) -> int:
    from evalcore.cli.common import UsageError
    from evalcore.present.calibration import ppi_table

    if args.lam is not None and not 0 <= args.lam <= 1:
        raise UsageError("--lam is the weight on the judge, between 0 and 1")
    if args.min_labelled < 1:
        raise UsageError("--min-labelled must be 1 or more")
    cluster = None if args.cluster == "instruction" else args.cluster
    store = load_store(args.file, text=cluster is not None)  # unit columns are kept with the text
    judge = pick_judge(store, args.judge)
    _check_category(store, args.category)
    result = ppi_ratings(
        store,
        judge=judge,
        category=args.category,
        lam=args.lam,
        min_labelled=args.min_labelled,
        cluster=cluster,
    )
    if args.json:
        print_json(result.as_dict())
        return 0
    print(
        f"judge {judge}: {result.n_calls:,} judged calls, {result.n_labelled_pairs:,} labelled pairs on "
        f"{result.n_labelled_instructions:,} {result.cluster}s; weight on the judge {result.lam:.2f}"
        + (" (PPI++ formula)" if result.lam_tuned else " (given)")
        + f"; Elo points, 95% intervals clustered by {result.cluster}"
    )
    print_table(ppi_table(result))
    print(
        f"effective human sample: {result.effective_overall:,.0f} labelled pairs "
        f"({result.gain:.2f} × the {result.n_labelled_pairs:,} labelled)"
    )
    for note in result.notes:
        print(f"note: {note}")
    return 0


def run_certify(args: argparse.Namespace) -> int:
    from evalcore.cli.common import UsageError

    if not 0 < args.threshold < 1:
        raise UsageError("--threshold is a share between 0 and 1, e.g. 0.8")
    store = load_store(args.file)
    judge = pick_judge(store, args.judge)
    _check_category(store, args.category)
    if args.candidate is not None and args.candidate not in store.models():
        raise UsageError(
            f"--candidate {args.candidate!r} is not a model of the file; its models are: "
            + ", ".join(store.models())
        )
    cert = certify_judge(
        store, judge, candidate=args.candidate, category=args.category, threshold=args.threshold
    )
    if args.json:
        print_json(cert.as_dict())
    else:
        print(f"judge {judge}: {cert.sentence()}")
        if cert.note:
            print(f"note: {cert.note}")
    return 0 if cert.certified else 1
