"""A loaded verdict table and its analyses, for notebooks: two lines from a file to a result.

>>> import evalcore                                            # doctest: +SKIP
>>> ds = evalcore.load("verdicts.csv")                         # doctest: +SKIP
>>> ds.leaderboard(judge="gpt-4").table.head()                 # doctest: +SKIP

Every method is a thin call into the analysis function of the same concept with this dataset's
counts; results are the same frozen objects the app draws and ``--json`` prints.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalcore.errors import UsageError
from evalcore.text import fmt_count

if TYPE_CHECKING:
    from collections.abc import Mapping

    from evalcore.counts import VerdictCounts
    from evalcore.ranking import IntervalChoice, Leaderboard
    from evalcore.store.store import DatasetSummary, VerdictStore
    from evalcore.verdicts import VerdictFilter, VerdictPage


class Dataset:
    """One verdict table loaded into its own in-memory DuckDB store.

    Build it with :func:`evalcore.load`. ``judge`` may be omitted when the table has one judge.
    """

    def __init__(self, store: VerdictStore) -> None:
        self.store = store

    def __repr__(self) -> str:
        s = self.store
        return f"Dataset({s.name!r}: {len(s.models())} models, {fmt_count(len(s.judges()), 'judge')})"

    # -- what is loaded ---------------------------------------------------------------------
    @property
    def judges(self) -> tuple[str, ...]:
        return self.store.judges()

    @property
    def models(self) -> tuple[str, ...]:
        return self.store.models()

    @property
    def categories(self) -> tuple[str, ...]:
        return self.store.categories()

    def summary(self) -> DatasetSummary:
        """Sizes, design (all pairs, anchor-only, partial), orders, coverage and labels."""
        return self.store.summary()

    def _judge(self, judge: str | None) -> str | None:
        judges = self.judges
        if judge is None:
            if len(judges) > 1:
                raise UsageError(
                    "judge is required: this table has several judges (" + ", ".join(judges) + ")."
                )
            return judges[0] if judges else None
        if judge not in judges:
            raise UsageError(f"judge {judge!r} is not in this table; it has: {', '.join(judges)}.")
        return judge

    @property
    def unit_columns(self) -> tuple[str, ...]:
        """The unit columns (session, voter, run) intervals may be clustered by, besides the
        instruction."""
        return self.store.unit_columns()

    def counts(
        self, *, judge: str | None = None, category: str | None = None, cluster: str | None = None
    ) -> VerdictCounts:
        """The sparse counts every analysis reads (see :class:`evalcore.counts.VerdictCounts`);
        ``cluster`` (a unit column, default the instruction) is the unit intervals resample."""
        if category is not None and category not in self.categories:
            raise UsageError(
                f"category {category!r} is not in this table; it has: "
                + (", ".join(self.categories) or "no categories")
                + "."
            )
        return self.store.counts(judge=self._judge(judge), category=category, cluster=cluster)

    # -- the verdicts behind the numbers -----------------------------------------------------
    def verdicts(
        self, filter: VerdictFilter | Mapping[str, str] | None = None, *, offset: int = 0, limit: int = 20
    ) -> VerdictPage:
        """One page of cases with their prompt, answers and judge output
        (:meth:`evalcore.store.store.VerdictStore.verdicts`)."""
        return self.store.verdicts(filter, offset=offset, limit=limit)

    def verdict_options(self) -> dict:
        """Judges, models and categories to filter the verdicts by, and whether there is text."""
        return self.store.verdict_options()

    # -- analyses ---------------------------------------------------------------------------
    def leaderboard(
        self,
        *,
        judge: str | None = None,
        category: str | None = None,
        rounds: int = 1000,
        seed: int = 0,
        interval: IntervalChoice = "auto",
        cluster: str | None = None,
        weighting: str | None = None,
    ) -> Leaderboard:
        """Bradley–Terry leaderboard with 95% intervals (:func:`evalcore.leaderboard`); ``"auto"``
        chooses the method by :func:`evalcore.ranking.design.choose_interval`, the rule of
        ``rank`` and the Leaderboard page. ``cluster="session"`` (or ``"voter"``, ``"run"``: one
        of :attr:`unit_columns`) resamples that column's units instead of instructions;
        ``weighting="inverse-pair"`` weights every pair that met alike."""
        from evalcore.ranking import leaderboard

        return leaderboard(
            self.counts(judge=judge, category=category, cluster=cluster),
            rounds=rounds,
            seed=seed,
            interval=interval,
            weighting=weighting,
        )

    def judge_pooling(self, *, category: str | None = None, **options: Any):
        """Every judge pooled into one ranking, each weighted by its estimated reliability and
        shown beside its certification (:func:`evalcore.judge.pooling.pool_store`)."""
        from evalcore.judge.pooling import pool_store

        self.counts(judge=self.judges[0], category=category)  # validates the category
        return pool_store(self.store, category=category, **options)

    def style_control(
        self,
        *,
        controls: Any,
        judge: str | None = None,
        category: str | None = None,
        families: Any = None,
    ):
        """The leaderboard controlled for style: ``controls`` among length, markdown, position,
        family and ``feat_`` names (:func:`evalcore.ranking.style.controlled_leaderboard`)."""
        from evalcore.ranking.style import controlled_leaderboard

        self.counts(judge=judge, category=category)  # validates the judge and the category
        return controlled_leaderboard(
            self.store, judge=self._judge(judge), category=category, controls=controls, families=families
        )

    def fragility(self, *, judge: str | None = None, category: str | None = None, **options: Any):
        """How many verdicts the leader's (or each adjacent pair's) order rests on
        (:func:`evalcore.ranking.ranking_fragility`)."""
        from evalcore.ranking import ranking_fragility

        return ranking_fragility(self.counts(judge=judge, category=category), **options)

    def anchors(self, *, judge: str | None = None, category: str | None = None, **options: Any):
        """Per-anchor Kendall's tau, the inverted U and informativeness
        (:func:`evalcore.anchors.anchor_sweep`); ``human_ranking`` may also be a file path or
        ``"paper"`` (the anchor paper's bundled Chatbot Arena Elo)."""
        from evalcore.anchors import anchor_sweep
        from evalcore.ingest.reference import human_ranking

        if isinstance(options.get("human_ranking"), str):
            options["human_ranking"] = human_ranking(options["human_ranking"])

        return anchor_sweep(self.counts(judge=judge, category=category), **options)

    def judge_sheet(self, *, judge: str | None = None, category: str | None = None, **options: Any):
        """The judge's spec sheet: position bias, swap consistency, ties, agreement with humans
        (:func:`evalcore.judge.judge_sheet`)."""
        from evalcore.judge import judge_sheet

        return judge_sheet(self.store, self._judge(judge), category=category, **options)

    def ppi(self, *, judge: str | None = None, category: str | None = None, **options: Any):
        """Prediction-powered Bradley–Terry ratings: the judge on every pair, corrected by the
        human labels (:func:`evalcore.calibration.ppi_ratings`)."""
        from evalcore.calibration import ppi_ratings

        return ppi_ratings(self.store, judge=self._judge(judge), category=category, **options)

    def monitor(
        self,
        *,
        model_a: str | None = None,
        model_b: str | None = None,
        judge: str | None = None,
        **options: Any,
    ):
        """Whether judging can stop: the anytime-valid confidence sequence for the rating
        difference of ``model_a`` over ``model_b`` (both given) or for the leader being first
        (neither), over the verdicts as judged (:func:`evalcore.power.monitor.monitor_pair`,
        :func:`~evalcore.power.monitor.monitor_leader`; Howard et al. 2021)."""
        from evalcore.power.monitor import monitor_leader, monitor_pair

        if (model_a is None) != (model_b is None):
            raise UsageError("give both model_a and model_b (a pair), or neither (the leader).")
        if model_a is not None and model_b is not None:
            return monitor_pair(
                self.store, model_a=model_a, model_b=model_b, judge=self._judge(judge), **options
            )
        return monitor_leader(self.store, judge=self._judge(judge), **options)

    def as_of(self, *, as_of: Any, judge: str | None = None, **options: Any):
        """The leaderboard of the verdicts judged up to ``as_of`` (a date: its whole day, UTC), from
        the ``judged_at`` column (:func:`evalcore.ranking.over_time.as_of_leaderboard`)."""
        from evalcore.ranking.over_time import as_of_leaderboard

        return as_of_leaderboard(self.store, as_of=as_of, judge=self._judge(judge), **options)

    def rating_windows(self, *, judge: str | None = None, **options: Any):
        """Bradley–Terry ratings per time window and who moved between the first and the last
        (:func:`evalcore.ranking.over_time.rating_windows`)."""
        from evalcore.ranking.over_time import rating_windows

        return rating_windows(self.store, judge=self._judge(judge), **options)

    def judge_drift(self, *, judge: str | None = None, **options: Any):
        """Did the judge's verdicts on items judged more than once shift between early and late
        calls (:func:`evalcore.ranking.judge_drift.judge_drift`, a sign-flip permutation test)."""
        from evalcore.ranking.judge_drift import judge_drift

        return judge_drift(self.store, judge=self._judge(judge), **options)

    def budget(
        self,
        *,
        model_a: str,
        model_b: str,
        budget: float,
        prices: Any,
        judge: str | None = None,
        **options: Any,
    ):
        """For ``budget``, the judge calls and human labels of ``model_a`` against ``model_b``
        giving the narrowest 95% interval on their (human-corrected) win rate or, with
        ``quantity="rating_difference"``, their rating difference; ``prices`` an
        :class:`evalcore.power.budget.Prices` (:func:`evalcore.power.budget.plan_budget`)."""
        from evalcore.power.budget import plan_budget

        return plan_budget(
            self.store,
            model_a=model_a,
            model_b=model_b,
            budget=budget,
            prices=prices,
            judge=self._judge(judge),
            **options,
        )

    def anchor_budget(
        self,
        *,
        model_a: str,
        model_b: str,
        budget: float,
        prices: Any,
        judge: str | None = None,
        **options: Any,
    ):
        """For ``budget``, judging every model against anchors: the number of anchors, instructions
        and labelled instructions giving the narrowest 95% interval on the rating difference of
        ``model_a`` and ``model_b`` (or the win rate it implies), with the alternatives compared
        (:func:`evalcore.power.anchor_budget.plan_anchor_budget`)."""
        from evalcore.power.anchor_budget import plan_anchor_budget

        return plan_anchor_budget(
            self.store,
            model_a=model_a,
            model_b=model_b,
            budget=budget,
            prices=prices,
            judge=self._judge(judge),
            **options,
        )

    def certify(self, *, judge: str | None = None, category: str | None = None, **options: Any):
        """Judge certification against the human labels
        (:func:`evalcore.judge.certification.certify_judge`)."""
        from evalcore.judge.certification import certify_judge

        return certify_judge(self.store, self._judge(judge), category=category, **options)


def load(source: str | Path | bytes, *, name: str | None = None) -> Dataset:
    """Read a verdict file (CSV, CSV.gz, TSV, Parquet, JSON Lines, or a tool's native output), a
    counts table, or a folder or glob of Parquet verdict files (counted out of core, hive
    partitions read as columns; :mod:`evalcore.ingest.counts_table`) into a :class:`Dataset`.

    Raises :class:`evalcore.VerdictFormatError` naming the file, rows and values when the file
    breaks the data contract (``docs/data-contract.md``).
    """
    from evalcore.store.store import VerdictStore

    store = VerdictStore()
    # straight into the dataset's own store: one copy of the rows, and the text stays on disk
    if isinstance(source, bytes | bytearray):
        store.load_bytes(bytes(source), name=name or "upload")
    else:
        store.load_file(source, name=name)
    return Dataset(store)
