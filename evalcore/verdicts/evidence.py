"""How the cases a link opens make up the number it was clicked from.

An aggregate counts in its own unit: the Leaderboard's win-rate cell in battles (calls with a
verdict), the Anchors page in instructions, the Calibration page in labelled units, the Judge
page in both-orders pairings. The Verdicts page lists **cases** (one judge, instruction and
unordered pair, both orders together). :func:`evidence_lines` says, for the filter on screen,
how many cases hold how many of the aggregate's units, and recomputes the aggregate's statistic
on exactly those cases (from :meth:`evalcore.store.store.VerdictStore.case_stats`), so the number a
reader clicked and the list they read can be checked against each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evalcore.text import fmt_count, fmt_int, fmt_pct, markdown
from evalcore.verdicts.cases import CaseStats, VerdictFilter

__all__ = ["PairRecord", "closing_words", "evidence_lines", "link_count", "pair_record"]


@dataclass(frozen=True)
class PairRecord:
    """One model's record against another in a judge's counts (the Leaderboard's cell):
    ``battles`` (verdicts, self-comparisons left out), ``wins``, ``ties``, ``losses`` from
    ``model``'s side and ``unit`` ("battle" or "both-orders verdict")."""

    model: str
    opponent: str
    wins: float
    ties: float
    losses: float
    unit: str = "battle"

    @property
    def battles(self) -> float:
        return self.wins + self.ties + self.losses

    @property
    def win_rate(self) -> float:
        """Wins plus half the ties over battles (NaN without battles), as the Leaderboard's cell."""
        return (self.wins + self.ties / 2) / self.battles if self.battles else float("nan")


def pair_record(counts, model: str, opponent: str, *, unit: str = "battle") -> PairRecord:
    """``model``'s record against ``opponent`` in ``counts`` (a
    :class:`~evalcore.counts.VerdictCounts`, both slots pooled), the numbers behind the
    Leaderboard's win-rate cell; with both-orders counts, in both-orders verdicts.

    Examples
    --------
    >>> from evalcore.counts import VerdictCounts
    >>> c = VerdictCounts.from_cells(models=("x", "y"), instructions=("q1",), judge="j",
    ...     inst=[0, 0], a=[0, 1], b=[1, 0], n=[[0, 0, 0, 1, 0], [0, 0, 1, 0, 0]])
    >>> r = pair_record(c, "x", "y")
    >>> r.wins, r.ties, r.losses, r.win_rate
    (1.0, 1.0, 0.0, 0.75)
    """
    pooled = counts.pooled()
    i, j = counts.models.index(model), counts.models.index(opponent)
    as_a, as_b = pooled[i, j], pooled[j, i]  # levels −2..+2, slot A's side
    wins = float(as_a[3:].sum() + as_b[:2].sum())
    losses = float(as_a[:2].sum() + as_b[3:].sum())
    ties = float(as_a[2] + as_b[2])
    return PairRecord(model, opponent, wins, ties, losses, unit)


def _narrowed(flt: VerdictFilter) -> bool:
    """Whether filters beyond judge, category and pair narrow the cases."""
    return any(
        (flt.instruction, flt.verdict, flt.flipped, flt.disagrees_with_human, flt.search, flt.beats_all)
    ) or bool(flt.win_disagrees)


def evidence_lines(stats: CaseStats, flt: VerdictFilter, *, record: PairRecord | None = None) -> list[str]:
    """Sentences (Markdown, names escaped) saying what the cases of ``flt`` hold, in the unit of
    the number that links here, with that number recomputed on them.

    ``record``: the pair's record in both-orders verdicts when the Leaderboard's link came with
    its both-orders switch on (the cases' own calls are counted otherwise).

    Examples
    --------
    >>> s = CaseStats(cases=2, instructions=2, calls=4, verdicts=4, wins=3, ties=0, losses=1,
    ...     win_calls=0, flipped=1)
    >>> evidence_lines(s, VerdictFilter(model_a="x", model_b="y"))[1]
    '**x against y:** 4 battles (judge calls with a verdict) in these 2 cases; x won 3, tied 0 and lost 1: a win rate of 75.0% (a tie counts half), the number in the Leaderboard’s win-rate cell.'
    """
    noun = "case" if stats.cases == 1 else "cases"
    lines = [
        f"**{fmt_int(stats.cases)} {noun}** (one judge, instruction and pair of models each, both "
        f"orders together) on {fmt_int(stats.instructions)} instruction"
        f"{'' if stats.instructions == 1 else 's'}, holding {fmt_int(stats.calls)} judge calls "
        f"({fmt_int(stats.verdicts)} with a verdict)."
    ]
    if stats.cases == 0:
        return lines
    a, b = flt.model_a, flt.model_b
    if a and b:
        if record is not None:
            lines.append(
                f"**{markdown(a)} against {markdown(b)}, both-orders verdicts:** these cases make "
                f"{fmt_int(record.battles)} both-orders verdicts; {markdown(a)} won "
                f"{fmt_int(record.wins)}, tied {fmt_int(record.ties)} and lost "
                f"{fmt_int(record.losses)}: a win rate of {fmt_pct(record.win_rate, 1)} (a tie counts "
                "half), the number in the Leaderboard’s win-rate cell with its both-orders switch on."
            )
        else:
            battles = stats.wins + stats.ties + stats.losses
            rate = (stats.wins + stats.ties / 2) / battles if battles else float("nan")
            where = (
                "the number in the Leaderboard’s win-rate cell"
                if not _narrowed(flt)
                else "among the cases these filters keep (the Leaderboard’s cell counts every case of the pair)"
            )
            lines.append(
                f"**{markdown(a)} against {markdown(b)}:** {fmt_count(battles, 'battle')} (judge calls "
                f"with a verdict) in these {fmt_int(stats.cases)} {noun}; {markdown(a)} won "
                f"{fmt_int(stats.wins)}, tied {fmt_int(stats.ties)} and lost {fmt_int(stats.losses)}"
                + (f": a win rate of {fmt_pct(rate, 1)} (a tie counts half), {where}." if battles else ".")
            )
    if flt.beats_all:
        lines.append(
            f"**{fmt_int(stats.instructions)} instruction{'' if stats.instructions == 1 else 's'}** "
            f"where {markdown(flt.beats_all)} beats every model it met (the count on the Anchors "
            f"page); each is listed once per opponent, so they make these {fmt_int(stats.cases)} {noun}."
        )
    if flt.win_disagrees:
        who = markdown(flt.win_disagrees)
        if flt.unit == "both":
            lines.append(
                f"**{fmt_int(stats.cases)} labelled both-orders verdict{'' if stats.cases == 1 else 's'}** "
                f"where the judge and the human disagree on whether {who} won (one case each): "
                "the disagreements the Calibration page counts (human wins the judge did not call "
                "a win, and judge wins the human did not)."
            )
        else:
            lines.append(
                f"**{fmt_int(stats.win_calls)} labelled call{'' if stats.win_calls == 1 else 's'}** "
                f"where the judge and the human disagree on whether {who} won, in these "
                f"{fmt_int(stats.cases)} {noun}: the disagreements the Calibration page counts."
            )
    if flt.flipped:
        lines.append(
            f"**{fmt_int(stats.flipped)} {noun} whose two orders disagree:** with one call per "
            "order, each is one flipped both-orders pairing, the count behind the Judge page’s "
            "flip rate."
        )
    return lines


def link_count(stats: CaseStats, unit: str, words: Sequence[str] = ("case", "cases")) -> str:
    """``'7 cases'``: a count and its noun for a link's label."""
    count = getattr(stats, unit)
    return f"{fmt_int(count)} {words[0] if count == 1 else words[1]}"


def closing_words(text: str | None, *, chars: int = 300) -> str | None:
    """The last non-empty line of a judge's reasoning (its last ``chars`` characters at most),
    where judges put their final verdict (``[[A]]``, "Final verdict: …"); shown under a long
    reasoning so that the verdict is visible without scrolling. None for an empty text.

    Examples
    --------
    >>> closing_words("A is clearer.\\n\\nFinal verdict: [[A]]\\n")
    'Final verdict: [[A]]'
    >>> closing_words("   ") is None
    True
    """
    if text is None:
        return None
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    if not lines:
        return None
    last = lines[-1]
    return last if len(last) <= chars else "…" + last[-(chars - 1) :]
