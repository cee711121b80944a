"""The verdicts behind every number: cases (judge, instruction, pair; both orders together) with
their prompt, answers, the judge's own text, verdicts and human label, filtered and paged.

>>> from evalcore.verdicts import VerdictFilter
>>> VerdictFilter(model_a="x", model_b="y").as_params()
{'a': 'x', 'b': 'y'}

The cases come from :meth:`evalcore.store.store.VerdictStore.verdicts` (SQL in
:mod:`evalcore.store.verdicts`); :mod:`evalcore.present.verdict_words` turns a page into plain lines and
:mod:`evalcore.present.verdicts` into the Verdicts page's Markdown.
"""

from __future__ import annotations

from evalcore.verdicts.cases import (
    MAX_SEARCH,
    VERDICT_KINDS,
    VerdictCall,
    VerdictCase,
    VerdictFilter,
    VerdictKind,
    VerdictPage,
    as_filter,
)

__all__ = [
    "MAX_SEARCH",
    "VERDICT_KINDS",
    "VerdictCall",
    "VerdictCase",
    "VerdictFilter",
    "VerdictKind",
    "VerdictPage",
    "as_filter",
]
