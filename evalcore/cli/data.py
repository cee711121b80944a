"""``summary`` and ``rank``: what is in a file, and its Bradley–Terry leaderboard."""

from __future__ import annotations

import argparse
import importlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from evalcore import quantities as q
from evalcore.cli.common import (
    SELECTION,
    Command,
    UsageError,
    given,
    load_store,
    opt,
    pick_category,
    print_json,
    print_notes,
    select,
    show,
)
from evalcore.text import fmt_count

if TYPE_CHECKING:
    from evalcore.counts import VerdictCounts

T = TypeVar("T")


def run_summary(args: argparse.Namespace) -> int:
    store = load_store(args.file)
    summary = store.summary()
    if args.json:
        return print_json(summary.as_dict())
    from evalcore.present.summary import design_markdown, metric_cells, no_verdict_table

    cells = [f"{label}: {value}" for label, value in metric_cells(summary)]
    show(f"{summary.name} ({summary.format})", cells, design_markdown(summary), no_verdict_table(summary))
    return 0


def _rank_all_judges(store, args: argparse.Namespace) -> int:
    """``--judge all``: every judge pooled, each weighted by its estimated reliability."""
    from evalcore.judge.pooling import pool_store
    from evalcore.ranking.judges import METHOD

    if args.control is not None:
        raise UsageError("--judge all does not combine with --control; control one judge's ranking")
    res = pool_store(
        store, category=pick_category(store, args.category), rounds=min(args.bootstrap, 1000), seed=args.seed
    )
    store.close()
    if args.json:
        return print_json(res.as_dict())
    from evalcore.present.ranking import judge_weights_display, pooled_display

    show(f"{len(res.judges)} judges pooled, {res.n_instructions:,} instructions; {METHOD}")
    print_notes(res.notes)
    show(
        pooled_display(res),
        judge_weights_display(res),
        f"Kendall's tau with plain pooling: {res.tau_plain:.2f}",
    )
    return 0


def _check_families(args: argparse.Namespace) -> None:
    if args.families is not None:  # checked before any work, with or without --control family
        families_file = Path(args.families)
        if not families_file.is_file():
            what = "is a folder, not a file" if families_file.is_dir() else "does not exist"
            raise UsageError(f"--families {args.families}: the file {what}; give a model,family CSV")
        if args.control is None or "family" not in {c.strip() for c in args.control.split(",")}:
            raise UsageError(
                "--families needs --control family (it lists each model's family for that control)"
            )


def _rank_as_of(args: argparse.Namespace) -> int:
    """``--as-of DATE``: the leaderboard of the verdicts judged up to that date."""
    from evalcore.ranking.over_time import as_of_leaderboard

    if args.control is not None or args.judge == "all":
        raise UsageError("--as-of ranks one judge without style control; drop --control or --judge all")
    chosen = select(args, text=True)  # judged_at is kept with the text
    result = as_of_leaderboard(
        chosen.store,
        judge=chosen.judge,
        category=chosen.category,
        rounds=args.bootstrap,
        **given(args, "as_of", "seed", "interval"),
    )
    chosen.store.close()
    if args.json:
        return print_json(result.as_dict())
    board = result.board
    from evalcore.present.ranking import display_table

    intervals = (
        f"Judge {chosen.judge}; 95% intervals: {board.interval_description} ({board.interval_reason})."
    )
    print_notes((*board.design_warnings, *board.notes))
    show(result.sentence(), intervals, display_table(board))
    return 0


def _unit_options(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """``--cluster`` and ``--weighting`` as the library takes them (None for the defaults)."""
    cluster = None if args.cluster == "instruction" else args.cluster
    weighting = None if args.weighting == "none" else args.weighting
    if (cluster or weighting) and (args.judge == "all" or args.as_of is not None):
        raise UsageError("--cluster and --weighting rank one judge; drop --judge all or --as-of")
    return cluster, weighting


def _meanwhile(work: Callable[[], T], name: str) -> Callable[[], T]:
    """Run ``work`` in a second thread; the call returned waits for it and gives its result (or
    raises its error). For work that overlaps with the main thread's: DuckDB, numpy's larger
    operations and LAPACK let go of the interpreter's lock while they work, so both cores run."""
    done: dict[str, Any] = {}

    def run() -> None:
        try:
            done["value"] = work()
        except BaseException as exc:  # raised again in the thread that waits for the result
            done["error"] = exc

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()

    def result() -> T:
        thread.join()
        if "error" in done:
            raise done["error"]
        return done["value"]

    return result


def _import_meanwhile(module: str) -> Callable[[], Any]:
    """Import ``module`` in a second thread while this one waits for DuckDB (reading the file,
    counting the verdicts), so the ranking's libraries load on the other core instead of before
    or after. Python's import lock makes the main thread wait for a module the thread is still
    importing."""
    return _meanwhile(lambda: importlib.import_module(module), "imports")


def run_rank(args: argparse.Namespace) -> int:
    _check_families(args)  # --bootstrap is checked by its range
    cluster, weighting = _unit_options(args)
    if args.as_of is not None:
        return _rank_as_of(args)
    ranking = _import_meanwhile("evalcore.ranking.split_half")
    # Markdown counts read the answers; unit columns are kept with the text (as judged_at)
    store = load_store(args.file, text=args.control is not None or cluster is not None)
    ranking()
    if args.judge == "all" and "all" not in store.judges():
        return _rank_all_judges(store, args)
    chosen = select(args, store=store)
    judge = chosen.judge
    from evalcore.ranking.sparse_fit import SPARSE_FROM_MODELS

    # many models: the fit needs scipy's sparse matrices, imported while DuckDB counts
    sparse = _import_meanwhile("scipy.sparse") if len(store.models()) >= SPARSE_FROM_MODELS else None

    def read() -> VerdictCounts:
        return store.counts(judge=judge, category=chosen.category, cluster=cluster)

    # the counts are all the ranking needs: read within the table's memory (a large sort spills to
    # disk), then the table's memory goes back first
    counts = read() if args.control is not None else store.frugally(read)
    if sparse is not None:
        sparse()
    if args.control is None:
        store.close()
    from evalcore.ranking import leaderboard
    from evalcore.ranking.split_half import split_half_stability

    # The split halves refit on the other core while the leaderboard fits (each its own random
    # numbers: the same results as one after the other). The instruction patterns both resample
    # are found first, once, not by both threads at the same time (where the halves read them: two
    # models and two instructions at least). 300,000 arena battles: 0.38 -> 0.30 s for the two, in
    # one process.
    if counts.n_models >= 2 and counts.n_instructions >= 2:
        counts.pattern_counts()
    stability_of = _meanwhile(lambda: split_half_stability(counts, seed=args.seed), "split halves")
    board = leaderboard(
        counts, rounds=args.bootstrap, seed=args.seed, interval=args.interval, weighting=weighting
    )
    styled = None
    if args.control is not None:
        # style control needs pandas and the store's rows: imported only when asked for
        from evalcore.present.style import merge_style_records
        from evalcore.ranking.style import controlled_leaderboard

        families = None
        if args.families:
            from evalcore.judge import read_families

            families = read_families(Path(args.families).read_text(encoding="utf-8-sig"))
        styled = controlled_leaderboard(
            store, judge=judge, category=args.category, controls=args.control, families=families
        )
        store.close()
    stability = stability_of()
    if args.json:
        out = board.as_dict()
        out["split_half"] = stability.as_dict()
        if styled is not None:
            out["models"] = merge_style_records(out["models"], styled)
            out["style_control"] = styled.as_dict()
        return print_json(out)
    print(
        f"Judge {judge}: {fmt_count(board.n_instructions, 'instruction')}; 95% intervals: {board.interval_description}"
        f" ({board.interval_reason})"
    )
    units = f"{q.name('resampling_units')}: {q.format('resampling_units', board.n_units)} {board.cluster}s"
    widening = f"{q.name('cluster_widening')}: {q.format('cluster_widening', board.cluster_widening)}"
    show(f"{units}; {widening}" if board.cluster != "instruction" else None)
    print_notes((*board.design_warnings, *board.notes))
    # the Leaderboard page's own table: the same columns, names and words on both faces
    from evalcore.present.ranking import display_table
    from evalcore.present.style import style_caption, style_display

    table = display_table(board)
    show(style_display(table, styled) if styled is not None else table, f"Stability: {stability.sentence()}")
    if styled is not None:
        show(style_caption(styled))
        print_notes(styled.notes)
    return 0


COMMANDS = (
    Command("summary", "models, instructions, judges, design and coverage", run_summary, ("file",)),
    Command(
        "rank",
        "Bradley–Terry leaderboard with 95%% intervals",
        run_rank,
        (
            *SELECTION,
            opt(
                "bootstrap",
                default=1000,
                help="bootstrap rounds over instructions (default 1000; 0 for none); with "
                "the sandwich, the draws behind the rank ranges",
            ),
            opt(
                "--interval",
                choices=("auto", "bootstrap", "sandwich"),
                default="auto",
                help="auto (default: the instruction-clustered sandwich above 50,000 instructions or 150 "
                "models, else the bootstrap; the rule the Leaderboard page and the library use, and the "
                "output says which it chose and why), bootstrap over instructions, or sandwich",
            ),
            "seed",
            opt(
                "--cluster",
                default="instruction",
                metavar="COLUMN",
                help="the unit the intervals resample: instruction (default), or the file's session, voter "
                "or run column (the bootstrap redraws whole units, the sandwich sums scores per unit)",
            ),
            opt(
                "--weighting",
                choices=("none", "inverse-pair"),
                default="none",
                help="inverse-pair: every pair of models that met weighs the same (for unbalanced arenas); "
                "adds each model's weighting_shift",
            ),
            opt(
                "--control",
                default=None,
                metavar="LIST",
                help="control for style: comma-separated length, markdown, position, family (and any "
                "feat_<name>_a/_b column pair by its name); adds each model's controlled rating, interval "
                "and rank change, and each covariate's coefficient",
            ),
            opt(
                "families",
                metavar="CSV",
                help="a model,family list for --control family (default: families recognised from name prefixes)",
            ),
            opt(
                "--as-of",
                default=None,
                metavar="DATE",
                help="the leaderboard as of a date: only the verdicts judged up to the end of that day (UTC), "
                "read from the optional judged_at column",
            ),
        ),
    ),
)
