"""What controlling for style shows, in plain text: the Leaderboard's style-controlled table, its
caption and the command's columns, from a :class:`~evalcore.ranking.style.StyleControl`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalcore.present.ranking import interval_text
from evalcore.ranking.style import METHOD, StyleControl
from evalcore.text import MISSING, fmt_int, fmt_num, fmt_rating

#: One sentence saying what controlling for style does (the page shows it under the toggle).
STYLE_EXPLAINED = (
    "Controlling for style refits the ratings with the chosen differences between the two "
    "answers (length, Markdown, slot, family) as extra terms, so each rating estimates how the "
    "model would fare if its answers matched its rival's in those respects (LMArena's style "
    "control, Li et al. 2024)."
)

#: The page's words for each control.
CONTROL_LABELS = {
    "length": "Length",
    "markdown": "Markdown (headers, bold, lists)",
    "position": "Slot position (first-slot advantage)",
    "family": "Same family as the judge",
}


def control_label(control: str) -> str:
    """The multiselect's words for a control (a ``feat_`` name is shown as itself)."""
    return CONTROL_LABELS.get(control, f"{control} (feat_{control}_a/_b)")


def style_columns(sc: StyleControl) -> pd.DataFrame:
    """Per model: controlled_rank, controlled_rating, controlled_ci_low/high, rank_change
    (machine columns for the CLI table and CSV)."""
    t = sc.table
    return pd.DataFrame(
        {
            "model": t["model"],
            "controlled_rank": t["rank"].astype(int),
            "controlled_rating": t["rating"],
            "controlled_ci_low": t["ci_low"],
            "controlled_ci_high": t["ci_high"],
            "rank_change": t["rank_change"].astype(int),
        }
    )


def merge_style_records(records: list[dict], sc: StyleControl) -> list[dict]:
    """Leaderboard JSON records with each model's controlled rating, interval and rank change
    (None for a model the controlled fit could not use)."""
    extra = {r["model"]: r for r in style_columns(sc).to_dict(orient="records")}
    out = []
    for record in records:
        add = extra.get(record["model"], {})
        out.append(record | {k: add.get(k) for k in style_columns(sc).columns if k != "model"})
    return out


def _change_text(change: int) -> str:
    if change > 0:
        return f"▲ {change}"
    if change < 0:
        return f"▼ {-change}"
    return "="


def style_display(table: pd.DataFrame, sc: StyleControl) -> pd.DataFrame:
    """The page's leaderboard (from :func:`display_table`) reordered by the controlled rank, with
    the controlled rating, its interval and the rank change (▲ up, ▼ down, = unchanged)."""
    t = sc.table.set_index("model")
    out = table.copy()
    known = out["Model"].isin(t.index)
    rows = t.reindex(out["Model"])
    controlled = {
        "Rank change": [
            _change_text(int(c)) if k else MISSING
            for c, k in zip(rows["rank_change"].fillna(0), known, strict=True)
        ],
        "Controlled rating": [fmt_rating(v) for v in rows["rating"]],
        "Controlled 95% interval": [
            interval_text(float(lo), float(hi), "")
            for lo, hi in zip(rows["ci_low"], rows["ci_high"], strict=True)
        ],
    }
    for at, (heading, values) in enumerate(controlled.items(), start=2):
        out.insert(at, heading, values)
    out = out.rename(columns={"Rank": "Rank (uncontrolled)"})
    ranks = [int(r) for r in rows["rank"].fillna(0)]
    # one type per column (Arrow refuses a mix): whole numbers, or text when some model is missing
    out.insert(
        0,
        "Rank",
        ranks if known.all() else [str(r) if k else MISSING for r, k in zip(ranks, known, strict=True)],
    )
    order = np.argsort(np.where(known, rows["rank"].fillna(np.inf).to_numpy(), np.inf), kind="stable")
    return out.iloc[order].reset_index(drop=True)


#: Shown when the both-orders verdicts are on: style control reads the calls as judged.
STYLE_BOTH_ORDERS = (
    "Style control reads each call as judged (the per-answer features belong to one order), so "
    "it compares with the leaderboard of single-order verdicts; turn off both-orders verdicts to "
    "compare like with like."
)


def style_caption(sc: StyleControl) -> str:
    """What the controlled table is, and what each covariate is worth, in words (show it through
    an escaping helper: a ``feat_`` name is the user's)."""
    effects = " ".join(
        f"{c.name.capitalize() if c.control == 'markdown' else control_label(c.control)}: {c.meaning}"
        for c in sc.coefficients
    )
    top = (
        "Controlling for style changes the top of the leaderboard."
        if sc.top_changed
        else "Controlling for style leaves the first place unchanged."
    )
    moved = int((sc.table["rank_change"] != 0).sum())
    return (
        f"Ratings controlled for {', '.join(sc.controls)}; intervals: {METHOD}. {top} "
        f"{fmt_int(moved)} of {fmt_int(len(sc.table))} models change rank (Kendall's tau between "
        f"the two orders {fmt_num(sc.kendall_tau, 2)}). {effects}"
    )
