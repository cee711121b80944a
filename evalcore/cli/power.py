"""``power``, ``power-detect`` and ``power-sim``: sign-test sample sizes, what a file's data can
separate, and Wilcoxon power by simulation (Don-Yehiya et al. 2026, §4.3, Table 2, App. C)."""

from __future__ import annotations

import argparse
import math

import numpy as np

from evalcore import quantities as q
from evalcore.cli.common import (
    SELECTION,
    Command,
    UsageError,
    given,
    opt,
    print_json,
    print_notes,
    print_table,
    report_unavailable,
    select,
)
from evalcore.errors import DesignError
from evalcore.limits import MIN_EDGE


def _edge(text: str) -> float:
    """An edge as a fraction (0.05) or a percentage (5%)."""
    raw = text.strip()
    try:
        value = float(raw[:-1]) / 100.0 if raw.endswith("%") else float(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an edge: write 0.05 or 5%") from None
    if not MIN_EDGE <= value <= 0.5:  # also refuses nan and inf
        raise argparse.ArgumentTypeError(
            f"got {text}; an edge must be from {MIN_EDGE:g} to 0.5: +5% is 0.05 (the better model "
            "wins 55% of the discordant samples); an edge below +0.0001% would need over a trillion "
            "samples"
        )
    return value


def _method(args: argparse.Namespace) -> str:
    """The sign test's method: the exact binomial with ``--exact``, else the normal approximation."""
    return "exact" if args.exact else "normal"


def _counts(args: argparse.Namespace):
    """The selection's verdict counts, ``--anchor`` checked against their models."""
    counts = select(args).counts()
    if args.anchor is not None and args.anchor not in counts.models:
        raise UsageError(
            f"anchor {args.anchor!r} is not in the file; its models are: " + ", ".join(counts.models)
        )
    return counts


def _sizes_in_calls(args: argparse.Namespace, plan, counts) -> list:
    """Each row's instructions in judge calls (and money with --price-per-call); None per row
    without an informativeness (no total)."""
    from evalcore.power.budget import Prices, calls_per_instruction, size_cost

    if plan.informativeness is None:
        return [None] * len(plan.table)
    m = args.models or (counts.n_models if counts is not None else 2)
    per = calls_per_instruction(m, design=args.design.replace("-", " "), orders=args.orders)
    prices = Prices(args.price_per_call) if args.price_per_call is not None else None
    return [size_cost(int(n), per_instruction=per, prices=prices) for n in plan.table["total"]]


def run_power(args: argparse.Namespace) -> int:
    from evalcore.power import sample_size_plan

    info = args.informativeness
    counts = None
    if args.file is not None:
        if info is not None:
            raise UsageError("give either --informativeness or --file with --anchor, not both")
        if args.anchor is None:
            raise UsageError("--file needs --anchor: the anchor whose informativeness to use")
        from evalcore.anchors import anchor_informativeness

        counts = _counts(args)
        try:
            info = anchor_informativeness(counts, args.anchor)
        except DesignError as exc:
            raise UsageError(f"{exc} Pass --informativeness instead.") from None
        if not math.isfinite(info) or info <= 0:
            raise UsageError(
                f"no instruction has two models judged against {args.anchor!r}: its "
                "informativeness cannot be measured; pass --informativeness"
            )
    elif args.anchor is not None:
        raise UsageError("--anchor needs --file (the data to measure its informativeness on)")
    plan = sample_size_plan(
        args.edge, informativeness=info, method=_method(args), **given(args, "alpha", "power", "two_sided")
    )
    sizes = _sizes_in_calls(args, plan, counts if args.file is not None else None)
    if args.json:
        out = plan.as_dict()
        if args.file is not None:
            out["informativeness_source"] = f"anchor {args.anchor} in {args.file}"
        for row, size in zip(out["plans"], sizes, strict=True):
            if size is not None:
                row["judge_calls"], row["cost"] = size.calls, size.money
        return print_json(out)
    d = plan.as_dict()
    print(
        f"{d['test']}, significance level {plan.alpha:g}, power {plan.power:.0%}, {d['method']}"
        + (f"; {q.name('informativeness')} {q.format('informativeness', info)}" if info is not None else "")
    )
    table = plan.table.copy()
    table["edge"] = [f"+{e * 100:g}%" for e in table["edge"]]
    if info is None:
        table = table.drop(columns=["total"])
    else:
        table["judge_calls"] = [size.calls for size in sizes]
        if args.price_per_call is not None:
            table["cost"] = [q.format("size_cost", size.money) for size in sizes]
    print_table(table)
    print_notes(plan.notes)
    return 0


def run_detect(args: argparse.Namespace) -> int:
    from evalcore.power import detectable_edges

    counts = _counts(args)
    info = None
    if args.anchor is not None:
        from evalcore.anchors import anchor_informativeness

        try:
            # the pairs' unit (one comparison per instruction and pair), so the headline's
            # N × I counts the same discordant instructions as the pairs' columns
            info = anchor_informativeness(counts, args.anchor, per_order=False)
        except DesignError:  # one battle per prompt: the pairs' own informativeness is used
            info = None
        info = info if info is not None and math.isfinite(info) and info > 0 else None
    result = detectable_edges(
        counts, informativeness=info, method=_method(args), **given(args, "anchor", "alpha", "power")
    )
    if args.json:
        return print_json(result.as_dict())
    how = f"against anchor {args.anchor}" if args.anchor else "head-to-head"
    edge = result.detectable_edge
    source = (
        f"informativeness of anchor {args.anchor}, per instruction and pair as the pairs' own"
        if info is not None
        else result.informativeness_source
    )
    # the app's names and formats (the catalogue), not the paper's symbols
    shared = "informativeness" if info is not None else "mean_pair_informativeness"
    print(
        f"{result.n_instructions:,} instructions, {how}; {q.name(shared)} "
        f"{q.format(shared, result.informativeness)} ({source}); {q.name('detectable_edge')} over "
        "the differing instructions: "
        + (q.format("detectable_edge", edge) if math.isfinite(edge) else "none")
        + f"; {result.n_resolved} of {result.n_pairs} adjacent pairs resolved"
    )
    print(f"detectable edges and instructions needed: {result.level_text}")
    cols = [
        "upper",
        "lower",
        "discordant",
        "observed_edge",
        "detectable_edge",
        "p_value",
        "p_holm",
        "resolved",
        "instructions_needed",
    ]
    print_table(result.table[cols], floatfmt="{:.3g}")
    print_notes(result.notes)
    return 0


def run_sim(args: argparse.Namespace) -> int:
    from evalcore.power import difference_distributions, wilcoxon_power

    counts = _counts(args)
    anchors = [args.anchor] if args.anchor is not None else None
    try:
        dists = difference_distributions(counts, anchors)
    except DesignError as exc:  # the design does not identify it: say so, not an error
        return report_unavailable(args, exc)
    if args.pair is not None:
        if args.anchor is None:
            raise UsageError("--pair needs --anchor")
        for m in args.pair:
            if m not in counts.models:
                raise UsageError(f"model {m!r} is not in the file")
        chosen, edge = dists.pair(args.pair[0], args.pair[1], anchor=args.anchor), None
        if len(chosen) == 0:
            raise UsageError(
                f"{args.pair[0]} and {args.pair[1]} were never both judged against "
                f"{args.anchor} on one instruction"
            )
    else:
        chosen, edge = dists.with_edge(args.edge, args.edge + 0.01), args.edge
        if len(chosen) == 0:
            seen = dists.table["edge"].dropna()
            raise UsageError(
                f"no (anchor, pair) distribution has an edge in [{args.edge:.0%}, "
                f"{args.edge + 0.01:.0%}); edges here run from {seen.min():.1%} to "
                f"{seen.max():.1%}"
            )
    grid = np.unique(
        np.linspace(max(1, args.max_n // args.steps), args.max_n, args.steps).round().astype(int)
    )
    curve = wilcoxon_power(
        chosen,
        grid,
        target_power=args.power,
        edge=edge,
        **given(args, "alpha", "two_sided", "simulations", "seed"),
    )
    if args.json:
        return print_json(curve.as_dict())
    print(
        f"{curve.n_distributions} distribution(s), mean edge {curve.mean_edge:.1%}, mean "
        f"informativeness {curve.mean_informativeness:.1%}; {curve.simulations:,} simulations "
        f"per N, seed {curve.seed}"
    )
    wide = curve.frame.pivot(index="n", columns="test", values="power")[
        [curve.WILCOXON, curve.SIGN, curve.SIGN_FORMULA]
    ].reset_index()
    print_table(wide)
    reach = {name: n for name, n in (("Wilcoxon", curve.wilcoxon_n), ("sign test", curve.sign_n))}
    for name, n in reach.items():
        print(
            f"{name} reaches power {curve.target_power:g} at N = "
            + (f"{n:,}" if n else f"more than {grid[-1]:,}")
        )
    if curve.planned_sign_total is not None:
        print(f"{q.name('instructions_needed')}: {curve.planned_sign_total:,} at this informativeness")
    return 0


COMMANDS = (
    Command(
        "power",
        "sign-test samples needed to detect a win-rate edge (discordant and total; Don-Yehiya et al. 2026)",
        run_power,
        (
            opt(
                "--edge",
                type=_edge,
                nargs="+",
                required=True,
                metavar="E",
                help="edge(s) to detect: 0.05 or 5%% means P(A beats B | discordant) = 0.55",
            ),
            "alpha",
            "power",
            opt("two_sided", help="two-sided test (default one-sided, as the published sample sizes)"),
            opt(
                "--exact",
                action="store_true",
                help="exact binomial test instead of the paper's normal approximation",
            ),
            opt(
                "--informativeness",
                type=float,
                default=None,
                metavar="I",
                help="share of samples on which the two models' verdicts differ; total = ceil(discordant / I)",
            ),
            opt(
                "--file",
                default=None,
                help="take I from this verdict file for --anchor instead of --informativeness",
            ),
            opt("--anchor", default=None, help="the anchor whose informativeness to use (with --file)"),
            opt(
                "--models",
                type=int,
                default=None,
                metavar="M",
                help="models to evaluate, for the judge calls each size needs (default: the file's, else 2)",
            ),
            opt(
                "--design",
                choices=("anchor", "all-pairs"),
                default="anchor",
                help="judge calls per instruction: M - 1 against an anchor (default) or M(M - 1)/2 for all pairs",
            ),
            opt("--orders", type=int, default=1, help="slot orders judged per pair (default 1)"),
            opt("price_per_call", help="price of one judge call: each size's cost"),
            "judge",
            "category",
        ),
    ),
    Command(
        "power-detect",
        "which adjacent leaderboard pairs the data can separate, and the smallest detectable edge for each",
        run_detect,
        (
            *SELECTION,
            opt(
                "--anchor", default=None, help="compare through this anchor (default: head-to-head verdicts)"
            ),
            opt("alpha", help="family-wise significance level (default 0.05)"),
            "power",
            opt(
                "two_sided",
                help="accepted for older scripts; the test that resolves a pair is always two-sided "
                "(Holm-adjusted), and the detectable edges are that test's",
            ),
            opt("--exact", action="store_true", help="exact binomial detectable edges"),
        ),
    ),
    Command(
        "power-sim",
        "Wilcoxon signed-rank vs sign-test power by simulation "
        "on the file's verdict differences (Don-Yehiya et al. 2026)",
        run_sim,
        (
            *SELECTION,
            opt(
                "--edge",
                type=_edge,
                default=0.05,
                help="use every (anchor, pair) distribution with edge in [E, E + 1%%) (default 5%%)",
            ),
            opt(
                "--anchor",
                default=None,
                help="only this anchor (default: every model in turn); required with --pair",
            ),
            opt(
                "--pair",
                nargs=2,
                default=None,
                metavar=("A", "B"),
                help="simulate one model pair against --anchor instead of an edge window",
            ),
            opt("--max-n", type=int, default=2000, help="largest total N (default 2000)"),
            opt("--steps", type=int, default=20, help="number of N values (default 20)"),
            opt("--simulations", type=int, default=2000, help="simulations per N (default 2000)"),
            opt("seed", help="random seed (default 0)"),
            "alpha",
            "power",
            "two_sided",
        ),
    ),
)
