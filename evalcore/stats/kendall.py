"""Kendall's rank correlation, batched over leading axes (Kendall, "A new measure of rank
correlation", Biometrika 1938; tau-b: Kendall, "The treatment of ties in ranking problems",
Biometrika 1945)."""

from __future__ import annotations

import numpy as np


def kendall_tau(x: np.ndarray, y: np.ndarray, *, variant: str = "b") -> np.ndarray:
    """Kendall's tau between score vectors along the last axis (higher score = better rank).

    ``x`` and ``y`` broadcast against each other (e.g. (B, M) against (M,)). A model whose score
    is NaN in either is left out (as scipy's ``nan_policy="omit"`` on the pair of vectors).
    ``variant="b"``: tau-b, concordant minus discordant over the geometric mean of the untied
    pairs of each vector (scipy's default); ``variant="a"``: over all pairs, ties count as
    neither (the documentation's definitions: per anchor kendall tau). NaN where undefined (fewer than two
    models, or a vector with every model tied under tau-b).
    """
    if variant not in ("a", "b"):
        raise ValueError("tau variant must be 'a' or 'b'")
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    x, y = np.broadcast_arrays(x, y)
    m = x.shape[-1]
    valid = np.isfinite(x) & np.isfinite(y)
    xs = np.where(valid, x, 0.0)
    ys = np.where(valid, y, 0.0)
    dx = np.sign(xs[..., :, None] - xs[..., None, :])
    dy = np.sign(ys[..., :, None] - ys[..., None, :])
    upper = np.triu(np.ones((m, m), dtype=bool), 1)
    pair = valid[..., :, None] & valid[..., None, :] & upper
    s = np.where(pair, dx * dy, 0.0).sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        if variant == "a":
            n0 = pair.sum(axis=(-2, -1)).astype(np.float64)
            tau = np.where(n0 > 0, s / np.where(n0 > 0, n0, 1.0), np.nan)
        else:
            n1 = (pair & (dx != 0)).sum(axis=(-2, -1)).astype(np.float64)
            n2 = (pair & (dy != 0)).sum(axis=(-2, -1)).astype(np.float64)
            denom = np.sqrt(n1 * n2)
            tau = np.where(denom > 0, s / np.where(denom > 0, denom, 1.0), np.nan)
    return tau
