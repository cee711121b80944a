"""What is loaded, in numbers: the dataset summary the Data page, the Overview and
``python -m evalcore summary`` show (sizes, design, orders, coverage, labels, no-verdict calls)."""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import TYPE_CHECKING

from evalcore._sql import one_row
from evalcore.text import fmt_count

if TYPE_CHECKING:
    import pandas as pd

    from evalcore.store.store import VerdictStore


@dataclass(frozen=True, repr=False)
class DatasetSummary:
    """What is loaded: sizes, design, orders, coverage and labels (issue 2, item 4)."""

    name: str
    format: str
    rows: int
    models: tuple[str, ...]
    instructions: int
    judges: tuple[str, ...]
    categories: tuple[str, ...]
    design: str  # "all pairs", "anchor-only", "partial"
    anchor: str | None  # the common opponent of an anchor-only table
    pairs_judged: int
    pairs_possible: int
    both_orders_fraction: float  # share of (judge, instruction, pair) judged in both orders
    self_comparison_rows: int
    labelled_rows: int
    no_verdict: pd.DataFrame  # judge, calls, no_verdict, no_verdict_rate
    pair_coverage: pd.DataFrame  # model_a × model_b matrix of calls (either slot), tidy

    @property
    def orders(self) -> str:
        if self.both_orders_fraction >= 0.999:
            return "both orders"
        if self.both_orders_fraction <= 0.0:
            return "single order"
        return f"mixed ({self.both_orders_fraction:.0%} of pairs in both orders)"

    def __repr__(self) -> str:
        # One line, as every result's repr: the dataclass default printed every model name and
        # two whole tables (about 3,000 characters on the demo).
        return (
            f"DatasetSummary({self.name!r}: {self.rows:,} rows, {len(self.models):,} models, "
            f"{self.instructions:,} instructions, {fmt_count(len(self.judges), 'judge')}, {self.design}, "
            f"{self.orders})"
        )

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "format": self.format,
            "rows": self.rows,
            "models": list(self.models),
            "n_models": len(self.models),
            "instructions": self.instructions,
            "judges": list(self.judges),
            "categories": list(self.categories),
            "design": self.design,
            "anchor": self.anchor,
            "pairs_judged": self.pairs_judged,
            "pairs_possible": self.pairs_possible,
            "orders": self.orders,
            "both_orders_fraction": self.both_orders_fraction,
            "self_comparison_rows": self.self_comparison_rows,
            "labelled_rows": self.labelled_rows,
            "no_verdict": self.no_verdict.to_dict(orient="records"),
        }


def summarise(store: VerdictStore) -> DatasetSummary:
    """The dataset summary shown on the home page and by ``python -m evalcore summary``."""
    import pandas as pd

    # imported here: the ranking package loads SciPy, which reading a file into the store does not
    # need (a server reads its demo while the rest is still being imported)
    from evalcore.ranking.design import classify_design

    # a cursor of its own: a page and the session's background work may read the store at once
    with store.con.cursor() as con:
        rows, instructions, labelled, self_rows = one_row(
            con.execute(
                # every count sums the calls a row stands for (its weight: 1, or a counts table's count)
                "SELECT coalesce(sum(weight), 0), count(DISTINCT instruction_id),"
                " coalesce(sum(weight) FILTER (WHERE human IS NOT NULL), 0),"
                " coalesce(sum(weight) FILTER (WHERE model_a = model_b), 0) FROM verdicts"
            )
        )
        models = store.models()
        no_verdict = con.execute(
            "SELECT judge, sum(weight)::BIGINT AS calls,"
            " coalesce(sum(weight) FILTER (WHERE verdict IS NULL), 0)::BIGINT AS no_verdict"
            " FROM verdicts GROUP BY judge ORDER BY judge"
        ).df()
        no_verdict["no_verdict_rate"] = no_verdict["no_verdict"] / no_verdict["calls"]
        coverage = con.execute(
            """
            SELECT least(model_a, model_b) AS model_1, greatest(model_a, model_b) AS model_2,
                   sum(weight)::BIGINT AS calls
            FROM verdicts WHERE model_a <> model_b GROUP BY ALL
            """
        ).df()
        # Both orders: a hash join of the distinct keys with themselves, slots swapped (linear;
        # a correlated EXISTS grows with the square of the rows on a 1.8 M-battle table).
        both = one_row(
            con.execute(
                """
            WITH keys AS (
                SELECT DISTINCT judge, instruction_id, model_a, model_b FROM verdicts
                WHERE model_a <> model_b)
            SELECT (SELECT count(*) FROM keys k JOIN keys k2 ON k2.judge = k.judge
                        AND k2.instruction_id = k.instruction_id
                        AND k2.model_a = k.model_b AND k2.model_b = k.model_a),
                   (SELECT count(*) FROM keys)
            """
            )
        )
    both_fraction = (both[0] / both[1]) if both[1] else 0.0
    design, anchor = classify_design(models, coverage[["model_1", "model_2"]])
    tidy = pd.concat(
        [
            coverage.rename(columns={"model_1": "model_a", "model_2": "model_b"}),
            coverage.rename(columns={"model_2": "model_a", "model_1": "model_b"}),
        ],
        ignore_index=True,
    )
    return DatasetSummary(
        name=store.name or "",
        format=store.format or "",
        rows=int(rows),
        models=models,
        instructions=int(instructions),
        judges=store.judges(),
        categories=store.categories(),
        design=design,
        anchor=anchor,
        pairs_judged=len(coverage),
        pairs_possible=comb(len(models), 2),
        both_orders_fraction=float(both_fraction),
        self_comparison_rows=int(self_rows),
        labelled_rows=int(labelled),
        no_verdict=no_verdict,
        pair_coverage=tidy,
    )
