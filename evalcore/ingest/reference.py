"""Reference rankings bundled with the project (``data/reference/``), and the human-ranking
argument every command and page shares: a bundled name or a file.

The one bundled ranking is the human (Chatbot Arena Elo) ranking of the anchor paper's 22 models,
in the names its released judgements use, so that the paper's anchor analysis against humans runs
on the released file without looking anything up (Don-Yehiya, Yehudai, Choshen and Abend,
"Mediocrity is the key for LLM as a Judge Anchor Selection", ACL 2026; the values come from the
paper's code, ``IBM/Anchor-Selection`` ``utils/model_config.py``, Apache-2.0; see
``data/reference/README.md``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from evalcore.errors import UsageError

__all__ = [
    "PAPER",
    "PAPER_HUMAN_LABEL",
    "human_ranking",
    "paper_human_ranking",
    "ranking_overlap",
]

#: The name that selects the bundled ranking (``--human paper``).
PAPER = "paper"
#: How pages and reports name it.
PAPER_HUMAN_LABEL = "the anchor paper's human ranking (Chatbot Arena Elo, Don-Yehiya et al. 2026)"
#: Where the bundled file lives: ``data/reference`` of the repository checkout.
REFERENCE_DIR = Path(__file__).resolve().parents[2] / "data" / "reference"
_PAPER_FILE = "anchor_paper_human_elo.csv"
#: The fewest models a ranking must share with a table for a rank correlation to say anything.
MIN_OVERLAP = 3


def paper_human_ranking() -> pd.DataFrame:
    """The anchor paper's human ranking: columns model, score (Chatbot Arena Elo), arena_name.

    Returns
    -------
    DataFrame
        22 rows, strongest first, ``model`` in the names of ``ibm-research/900K-Judgements``.

    Raises
    ------
    UsageError
        When the bundled file is missing (an installed copy of the library without the
        repository's ``data/`` folder): pass the ranking as a file instead.

    References
    ----------
    Don-Yehiya, Yehudai, Choshen and Abend, "Mediocrity is the key for LLM as a Judge Anchor
    Selection", ACL 2026, §3.3.

    Examples
    --------
    >>> ranking = paper_human_ranking()
    >>> len(ranking), ranking.iloc[0]["model"], int(ranking.iloc[0]["score"])
    (22, 'o3-2025-04-16', 1446)
    """
    path = REFERENCE_DIR / _PAPER_FILE
    if not path.is_file():
        raise UsageError(
            f"the bundled human ranking ({_PAPER_FILE}) is not here: it ships in the repository's "
            "data/reference folder. Pass the ranking as a file (columns model, score) instead."
        )
    frame = pd.read_csv(path, dtype={"model": "string", "arena_name": "string"})
    return pd.DataFrame(
        {
            "model": frame["model"].astype(str),
            "score": frame["score"].astype(float),
            "arena_name": frame["arena_name"].astype(str),
        }
    )


def human_ranking(spec: str) -> pd.DataFrame:
    """A human ranking from ``spec``: ``"paper"`` (the bundled one) or a file of ``model, score``.

    Parameters
    ----------
    spec : str
        ``"paper"`` or a path to a CSV / JSON file with the columns model, score.

    Returns
    -------
    DataFrame
        Columns model, score (higher is better).
    """
    if spec.strip().lower() == PAPER:
        return paper_human_ranking()[["model", "score"]]
    from evalcore.ingest.files import read_human_ranking

    return read_human_ranking(spec)


def ranking_overlap(models: Iterable[str], ranking: pd.DataFrame) -> int:
    """How many of ``models`` the ranking lists (by exact name).

    Examples
    --------
    >>> ranking_overlap(["o3-2025-04-16", "gpt-4.1", "mine"], paper_human_ranking())
    2
    """
    return len(set(models) & set(ranking["model"].astype(str)))
