"""Several judges pooled into one ranking, each judge's weight shown beside its certification
against the human labels: :func:`evalcore.ranking.judges.judge_pooling` over a store's judges.

It lives with the judge analyses, not with the ranking, because it reads certification (the
ranking package stays below the judge package)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from evalcore.errors import UsageError
from evalcore.judge.certification import certify_judge
from evalcore.ranking.judges import JudgePooling, judge_pooling

__all__ = ["pool_store"]


def pool_store(
    store: Any,
    *,
    category: str | None = None,
    certify: bool = True,
    **options: Any,
) -> JudgePooling:
    """:func:`judge_pooling` over every judge of a store, each judge's weight shown beside its
    certification against the human labels when the table has labels
    (:func:`evalcore.judge.certification.certify_judge`)."""
    names = store.judges()
    result = judge_pooling({j: store.counts(judge=j, category=category) for j in names}, **options)
    if not certify:
        return result
    judges = []
    for jw in result.judges:
        try:
            cert = certify_judge(store, jw.judge, category=category)
        except UsageError:  # no labels for this judge: nothing to show beside its weight
            judges.append(jw)
            continue
        if cert.wins.n + cert.non_wins.n == 0:
            judges.append(jw)
            continue
        judges.append(replace(jw, certified=cert.certified, certification=cert.sentence()))
    return replace(result, judges=tuple(judges))
