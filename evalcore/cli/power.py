"""``power``, ``power-detect`` and ``power-sim``: sign-test sample sizes, what a file's data can
separate, and Wilcoxon power by simulation (Don-Yehiya et al. 2026)."""

from __future__ import annotations

import argparse

import numpy as np

from evalcore.cli.common import (
    SELECTION,
    Command,
    UsageError,
    given,
    opt,
    print_json,
    report_unavailable,
    select,
    show,
)
from evalcore.errors import DesignError
from evalcore.limits import MIN_EDGE
from evalcore.present import power as page
from evalcore.text import fmt_pct


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


def _counts(args: argparse.Namespace):
    """The selection's verdict counts, ``--anchor`` checked against their models."""
    counts = select(args).counts()
    if args.anchor is not None and args.anchor not in counts.models:
        raise UsageError(
            f"anchor {args.anchor!r} is not in the file; its models are: " + ", ".join(counts.models)
        )
    return counts


def run_power(args: argparse.Namespace) -> int:
    from evalcore.power import sample_size_plan

    info = args.informativeness
    counts = None
    if args.file is not None:
        if info is not None:
            raise UsageError("give either --informativeness or --file with --anchor, not both")
        if args.anchor is None:
            raise UsageError("--file needs --anchor: the anchor whose informativeness to use")
        counts = _counts(args)
        info = page.measured_informativeness(counts, args.anchor)
        if info is None:  # the design cannot measure it, or no instruction can
            raise UsageError(page.informativeness_sentence(args.anchor, None) + " (--informativeness)")
    elif args.anchor is not None:
        raise UsageError("--anchor needs --file (the data to measure its informativeness on)")
    plan = sample_size_plan(
        args.edge,
        informativeness=info,
        method="exact" if args.exact else "normal",
        **given(args, "alpha", "power", "two_sided"),
    )
    from evalcore.power.budget import Prices, calls_per_instruction, size_cost

    # judge calls per instruction (the file's models, else --models or 2) and the prices
    m = args.models or (counts.n_models if counts is not None else 2)
    per = calls_per_instruction(m, design=args.design.replace("-", " "), orders=args.orders)
    prices = Prices(args.price_per_call) if args.price_per_call is not None else None
    if args.json:
        out = plan.as_dict()
        if args.file is not None:
            out["informativeness_source"] = f"anchor {args.anchor} in {args.file}"
        for row, total in zip(out["plans"], plan.table["total"], strict=True):
            if plan.informativeness is not None:
                size = size_cost(int(total), per_instruction=per, prices=prices)
                row["judge_calls"], row["cost"] = size.calls, size.money
        return print_json(out)
    show(page.sample_size_caption(plan), page.sample_size_table(plan, per_instruction=per, prices=prices))
    show([f"Note: {note}" for note in plan.notes])
    return 0


def run_detect(args: argparse.Namespace) -> int:
    # the pairs' unit for the anchor's informativeness (one comparison per instruction and pair)
    method = "exact" if args.exact else "normal"
    result = page.dataset_detection(
        _counts(args), None, method=method, **given(args, "anchor", "alpha", "power")
    )
    if args.json:
        return print_json(result.as_dict())
    top = page.top_pair_sentence(result)
    show(page.detectable_metrics(result, on_page=False), top and top[1], page.detectable_table(result))
    show(page.detectable_caption(result), [f"Note: {note}" for note in result.notes])
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
        chosen, edge, label = page.one_pair(dists, args.pair[0], args.pair[1], args.anchor)
    else:
        chosen, edge, label = page.edge_window(dists, args.edge)
    problem = page.empty_selection_sentence(dists, chosen, label, window=args.pair is None)
    if problem:
        raise UsageError(problem)
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
    wide = curve.frame.pivot(index="n", columns="test", values="power")
    show(page.curve_metrics(curve, int(grid[-1])), page.curve_caption(curve, label))
    show(
        wide[[curve.WILCOXON, curve.SIGN, curve.SIGN_APPROXIMATION]]
        .map(lambda v: fmt_pct(v, 1))
        .reset_index()
    )
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
                help="edges to detect: 0.05 or 5%% means A beats B in 55%% of the instructions where they differ",
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
                help="share of samples on which the two models' verdicts differ; the total is the discordant samples divided by it, rounded up",
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
                help="use every (anchor, pair) distribution with edge from E to just under E + 1 point (default 5%%)",
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
            opt("--max-n", type=int, default=2000, help="most instructions to simulate (default 2000)"),
            opt("--steps", type=int, default=20, help="number of sample sizes (default 20)"),
            opt("--simulations", type=int, default=2000, help="simulations per sample size (default 2000)"),
            opt("seed", help="random seed (default 0)"),
            "alpha",
            "power",
            "two_sided",
        ),
    ),
)
