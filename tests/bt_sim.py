"""Known-truth Bradley–Terry tables in the shapes real verdict tables have (for ranking tests).

``arena``: one battle per instruction, random pairs (Chatbot Arena's shape). ``all_pairs``: every
instruction judges every ordered pair, with instruction-level random effects per model, so calls
on one instruction are correlated (the reason intervals must be clustered by instruction).
``anchor``: every model against one reference, the reference always in slot B.
"""

from __future__ import annotations

import numpy as np

from evalcore.counts import VerdictCounts

LEVEL_WIN, LEVEL_TIE, LEVEL_LOSS = 3, 2, 1  # indices into LEVELS (-2, -1, 0, 1, 2)


def _outcomes(rng, theta_a, theta_b, tie_rate):
    p = 1.0 / (1.0 + np.exp(-(theta_a - theta_b)))
    u = rng.random(p.shape)
    tie = rng.random(p.shape) < tie_rate
    return np.where(tie, LEVEL_TIE, np.where(u < p, LEVEL_WIN, LEVEL_LOSS))


def simulate_bt(
    theta, n_instructions, *, shape="all_pairs", effect_sd=0.0, tie_rate=0.0, seed=0
) -> VerdictCounts:
    rng = np.random.default_rng(seed)
    theta = np.asarray(theta, dtype=float)
    m = theta.size
    models = tuple(f"m{k:02d}" for k in range(m))
    inst_names = tuple(f"q{i:06d}" for i in range(n_instructions))
    if shape == "arena":
        a = rng.integers(0, m, n_instructions)
        b = (a + rng.integers(1, m, n_instructions)) % m
        inst = np.arange(n_instructions)
    elif shape == "all_pairs":
        aa, bb = np.nonzero(~np.eye(m, dtype=bool))
        inst = np.repeat(np.arange(n_instructions), aa.size)
        a = np.tile(aa, n_instructions)
        b = np.tile(bb, n_instructions)
    elif shape == "anchor":
        inst = np.repeat(np.arange(n_instructions), m - 1)
        a = np.tile(np.arange(1, m), n_instructions)
        b = np.zeros_like(a)
    else:
        raise ValueError(shape)
    eff = rng.normal(0.0, effect_sd, (n_instructions, m)) if effect_sd else np.zeros((n_instructions, m))
    ta = theta[a] + eff[inst, a]
    tb = theta[b] + eff[inst, b]
    level = _outcomes(rng, ta, tb, tie_rate)
    n = np.zeros((inst.size, 5), dtype=np.int64)
    n[np.arange(inst.size), level] = 1
    return VerdictCounts.from_cells(
        models=models, instructions=inst_names, judge="sim", inst=inst, a=a, b=b, n=n
    )


def simulate_rare(
    theta, n_instructions, rare_instructions, *, effect_sd=0.0, tie_rate=0.0, seed=0
) -> VerdictCounts:
    """All pairs of every model but the last on every instruction; the last model (the rare one)
    meets every other model, in both orders, on the first ``rare_instructions`` instructions only
    (a model added late, or seen on a handful of prompts)."""
    full = simulate_bt(
        theta, n_instructions, shape="all_pairs", effect_sd=effect_sd, tie_rate=tie_rate, seed=seed
    )
    m = len(full.models)
    rare = m - 1
    involved = (full.a == rare) | (full.b == rare)
    keep = ~involved | (full.inst < rare_instructions)
    return VerdictCounts.from_cells(
        models=full.models,
        instructions=full.instructions,
        judge=full.judge,
        inst=full.inst[keep],
        a=full.a[keep],
        b=full.b[keep],
        n=full.n[keep],
    )
