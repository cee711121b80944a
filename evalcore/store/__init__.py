"""The DuckDB store: loading, the queries every analysis reads, the text kept apart, the workspace.

Modules: :mod:`.store` (:class:`VerdictStore`, the loading transaction and one method per
question; every count sums the stored rows' ``weight``, the calls a row stands for),
:mod:`.queries` (the SQL of the counts; the judge sheet's in :mod:`.judge_queries`, the time
queries' in :mod:`.time_queries`), :mod:`.summary`, :mod:`.style`, :mod:`.text`,
:mod:`.verdicts` (the cases behind a number), :mod:`.workspace` and :mod:`.rows` (saved datasets),
:mod:`.deadline`. The names below are the package's face for notebooks
(``VerdictStore`` imported from this package); they are imported lazily so that reading one query
module does not load DuckDB's whole loading path.
"""

from __future__ import annotations

from evalcore import lazy_face

_EXPORTS = {
    "VerdictStore": "evalcore.store.store",
    "read_verdicts": "evalcore.store.store",
    "counts_from_aggregate": "evalcore.store.store",
    "DatasetSummary": "evalcore.store.summary",
    "summarise": "evalcore.store.summary",
    "Workspace": "evalcore.store.workspace",
    "SavedDataset": "evalcore.store.workspace",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_face(__name__, _EXPORTS)
