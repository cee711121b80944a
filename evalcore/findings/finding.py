"""One headline finding: its tiles, its sentence, its definition and its numbers.

:class:`Finding` and :class:`Findings` are the results every face shows (the Overview page, the
HTML report, ``python -m evalcore report``); the titles, tile labels, detail pages and method
sections of the five findings are kept here once.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from evalcore.present.display import Metric

#: The five findings in the order they are shown: key → (title, the label of its first tile, the
#: analysis with its detail (the app's page of that name; a front end maps the name to its own
#: page, the Overview links to it), the section of the methods document behind it).
FINDINGS: dict[str, tuple[str, str, str, str]] = {
    "leader": ("Who leads", "Leader", "leaderboard", "ranking-bradleyterry-on-the-elo-scale"),
    "separation": (
        "Can the data separate the top models?",
        "Top two separated?",
        "power",
        "power-and-sample-sizes",
    ),
    "anchor": ("Which anchor to compare against", "Recommended anchor", "anchors", "anchor-selection"),
    "judge": ("The judge's position bias and ties", "Position bias", "judge", "the-judges-spec-sheet"),
    "correction": (
        "Can the win rate be corrected?",
        "Win rate correctable?",
        "calibration",
        "calibration-against-human-labels",
    ),
}
TILE_LABELS = {key: row[1] for key, row in FINDINGS.items()}
#: Finding → the section of the methods document (and the app's Methods page) behind it.
METHOD_SECTIONS = {key: row[3] for key, row in FINDINGS.items()}


def cell_number(value: Any) -> float:
    """A float from a table cell; NaN for a missing value (``pd.NA``, ``None``)."""
    return math.nan if value is None or pd.isna(value) else float(value)


def fmt_tau(value: float) -> str:
    """Kendall's tau with three decimals; words where it is undefined."""
    return f"{value:.3f}" if math.isfinite(value) else "undefined (too few models ranked)"


@dataclass(frozen=True)
class Finding:
    """One headline: metric tiles, a plain-words paragraph, its definition and its numbers.

    ``tiles`` are the :class:`Metric` s of a metric row. ``status`` is ``"clear"`` (the data
    answer the question), ``"caution"`` (they answer it with a warning: no separation, a large
    bias, a costly usual anchor, a refused correction) or ``"unavailable"`` (the analysis cannot
    run on this data; ``text`` says why). ``page`` names the analysis with the detail
    (``"leaderboard"``, ``"power"``, ``"anchors"``, ``"judge"``, ``"calibration"``).
    """

    key: str
    title: str
    tiles: tuple[Metric, ...]
    text: str
    definition: str
    page: str
    status: str
    numbers: dict[str, Any]

    def as_dict(self) -> dict:
        return asdict(self) | {"tiles": [t._asdict() for t in self.tiles]}


@dataclass(frozen=True)
class Findings:
    """The headline findings of one dataset and judge, in the order they are shown."""

    dataset: str
    judge: str
    findings: tuple[Finding, ...]

    def get(self, key: str) -> Finding:
        for finding in self.findings:
            if finding.key == key:
                return finding
        raise KeyError(key)

    def as_dict(self) -> dict:
        return {
            "dataset": self.dataset,
            "judge": self.judge,
            "findings": [f.as_dict() for f in self.findings],
        }

    def frame(self) -> pd.DataFrame:
        """One row per finding (title, status, text, definition) for a CSV download."""
        return pd.DataFrame(
            [
                {"finding": f.title, "status": f.status, "text": f.text, "definition": f.definition}
                for f in self.findings
            ]
        )


def make_finding(
    key: str, status: str, tiles: tuple[Metric, ...], text: str, definition: str, numbers: dict
) -> Finding:
    """The finding ``key`` with its title and the page of its detail."""
    title, _, page, _ = FINDINGS[key]
    return Finding(key, title, tiles, text, definition, page, status, numbers)


def unavailable_finding(key: str, reason: str) -> Finding:
    return make_finding(key, "unavailable", (Metric(TILE_LABELS[key], "—", "not available"),), reason, "", {})
