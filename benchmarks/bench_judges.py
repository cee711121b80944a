"""Several judges, one ranking: coverage and width of 95% intervals (simulation).

Three simulated judges of known noise and slot lean judge every pair of eight models in both
orders (:func:`evalcore.simulate.tables.simulate`). Three rankings are compared, each against its own
estimand, computed exactly from the simulator's expected verdicts (integrated over the
instructions' discrimination by Gauss–Hermite quadrature) and fitted by the same model:

* pooled: the judge-aware Bradley–Terry ranking (a reliability and a slot lean per judge);
* plain: every judge's verdicts pooled with equal weight (the one-judge leaderboard);
* the best single judge (the sharpest, alone).

The scales differ (a noisy judge's ratings are flatter), so widths are printed both in Elo
points and relative to the spread (standard deviation) of the estimand's ratings: the relative
width is what tells the rankings apart. Kendall's tau with the true strengths is printed too.
A second scenario adds a judge with three times the calls that always picks the weakest model
and flips coins elsewhere: where the weakest model ends up, pooled against plain.

    python -m benchmarks.bench_judges [--reps 40] [--rounds 200]

``--page`` instead times what the Judge page computes on the bundled demo (three judges, 20
models, 340,000 calls), through the evalcore calls the page makes: every judge's spec sheet
(1,000 bootstrap rounds, the demo's model families), the judges' weights in the pooled ranking
(200 rounds) and the length curve of each judge, for all categories and for each category (what a
change of the category drop-down recomputes). Medians of ``--repeat`` runs on a fresh store each
(nothing cached between runs), wall and CPU seconds (all threads of the process), with the load
average:

    python -m benchmarks.bench_judges --page [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from itertools import permutations
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalcore.ranking import leaderboard  # noqa: E402
from evalcore.ranking.bradley_terry import ELO_CENTRE, ELO_SCALE, fit_bradley_terry  # noqa: E402
from evalcore.ranking.judges import judge_pooling  # noqa: E402
from evalcore.ranking.judges_fit import fit_judge_aware  # noqa: E402
from evalcore.ranking.sparse_fit import rows_to_pairs  # noqa: E402
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate  # noqa: E402
from evalcore.stats.kendall import kendall_tau  # noqa: E402
from evalcore.store.store import VerdictStore  # noqa: E402

STRENGTHS = (1.0, 0.7, 0.45, 0.2, 0.0, -0.3, -0.6, -1.0)
PANELS = {
    "mixed": (
        JudgeSpec("sharp", noise=0.3),
        JudgeSpec("middling", noise=1.2),
        JudgeSpec("noisy", noise=2.5, slot_bias=0.6),
    ),
    # one sharp judge among three noisy ones (two of them leaning to slot A)
    "mostly-noisy": (
        JudgeSpec("sharp", noise=0.3),
        JudgeSpec("noisy-1", noise=2.5, slot_bias=0.6),
        JudgeSpec("noisy-2", noise=3.0),
        JudgeSpec("noisy-3", noise=3.5, slot_bias=0.8),
    ),
}
JUDGES = PANELS["mixed"]


def expected_scores(spec: SimulationSpec, judge: JudgeSpec, nodes: int = 64) -> np.ndarray:
    """(M, M): slot A's expected score (win 1, tie ½) with model a in slot A against b."""
    from scipy.stats import norm

    s = np.asarray(spec.strengths, dtype=float)
    x, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / w.sum()
    d = np.exp(spec.discrimination_sd * x)
    sd = np.sqrt(2 * spec.response_noise**2 + judge.noise**2)
    mean = d[None, None, :] * (s[:, None] - s[None, :])[:, :, None] + judge.slot_bias
    half = judge.tie_width / 2
    win = 1 - norm.cdf((half - mean) / sd)
    tie = norm.cdf((half - mean) / sd) - norm.cdf((-half - mean) / sd)
    return (win + 0.5 * tie) @ w


def estimands(spec: SimulationSpec) -> dict[str, np.ndarray]:
    """Each ranking's target ratings (Elo, mean 1000) from the expected verdicts."""
    m = len(STRENGTHS)
    scores = [expected_scores(spec, j) for j in spec.judges]
    ordered = [(a, b) for a, b in permutations(range(m), 2)]
    a = np.array([p[0] for p in ordered] * len(scores))
    b = np.array([p[1] for p in ordered] * len(scores))
    judge = np.repeat(np.arange(len(scores)), len(ordered))
    pairs, pair = rows_to_pairs(a, b, m)
    sign = np.where(a == pairs.i[pair], 1.0, -1.0)
    wins = np.concatenate([[sc[x, y] for x, y in ordered] for sc in scores])
    theta, _, _, ok = fit_judge_aware(
        pairs, judge, pair, sign, wins, np.ones_like(wins), len(scores), max_iter=5000
    )
    assert ok
    out = {"pooled": ELO_CENTRE + ELO_SCALE * theta}
    mats = []
    for j, sc in zip(spec.judges, scores, strict=True):
        mat = sc * (1 - np.eye(m))  # a in slot A; b in slot A scores 1 − sc[b, a] for a
        mat = mat + (1 - sc.T) * (1 - np.eye(m))
        mats.append(mat)
        out[j.name] = ELO_CENTRE + ELO_SCALE * fit_bradley_terry(mat)[0]
    out["plain"] = ELO_CENTRE + ELO_SCALE * fit_bradley_terry(sum(mats))[0]
    return out


def run(reps: int, rounds: int, n_instructions: int, judges: tuple[JudgeSpec, ...] = JUDGES) -> None:
    base = SimulationSpec(
        n_models=len(STRENGTHS), n_instructions=n_instructions, strengths=STRENGTHS, judges=judges
    )
    target = estimands(base)
    stats: dict[str, dict[str, list[float]]] = {
        k: {"cover": [], "width": [], "rel": [], "tau": []} for k in ("pooled", "plain", "sharp")
    }
    truth = np.array(STRENGTHS)
    cpu = time.process_time()
    for r in range(reps):
        spec = SimulationSpec(**{**base.__dict__, "seed": 1000 + r})
        store = VerdictStore.from_frame(simulate(spec).verdicts)
        names = store.models()
        res = judge_pooling({j: store.counts(judge=j) for j in store.judges()}, rounds=rounds, seed=r)
        got = {
            str(m): (lo, hi, v)
            for m, lo, hi, v in zip(
                res.columns["model"],
                res.columns["ci_low"],
                res.columns["ci_high"],
                res.columns["rating"],
                strict=True,
            )
        }
        boards = {
            "pooled": got,
            "plain": _board(leaderboard(store.counts(), rounds=rounds, seed=r, interval="bootstrap")),
            "sharp": _board(
                leaderboard(store.counts(judge="sharp"), rounds=rounds, seed=r, interval="bootstrap")
            ),
        }
        for key, board in boards.items():
            lo, hi, val = (np.array([board[n][k] for n in names]) for k in range(3))
            est = target[key]
            stats[key]["cover"] += list((lo <= est) & (est <= hi))
            stats[key]["width"].append(float(np.mean(hi - lo)))
            stats[key]["rel"].append(float(np.mean(hi - lo) / np.std(est)))
            stats[key]["tau"].append(float(kendall_tau(val, truth)))
    cpu = time.process_time() - cpu
    print(
        f"{reps} tables: {len(STRENGTHS)} models, {n_instructions} instructions, every pair in both orders, "
        f"judges {', '.join(f'{j.name} (noise {j.noise}, slot lean {j.slot_bias})' for j in judges)}; {rounds} bootstrap rounds"
    )
    print(
        f"{'ranking':<22} {'coverage':>9} {'width (Elo)':>12} {'width / spread':>15} {'tau with truth':>15}"
    )
    labels = {"pooled": "pooled (judge-aware)", "plain": "plain pooling", "sharp": "best single judge"}
    for key, st in stats.items():
        print(
            f"{labels[key]:<22} {100 * np.mean(st['cover']):>8.1f}% {np.median(st['width']):>12.1f} "
            f"{np.median(st['rel']):>15.2f} {np.mean(st['tau']):>15.3f}"
        )
    print(
        f"(coverage: share of {reps * len(STRENGTHS)} model intervals holding their estimand; widths: medians)"
    )
    print(f"CPU {cpu:.1f} s; load average {os.getloadavg()[0]:.1f}")


def _board(board) -> dict[str, tuple[float, float, float]]:
    t = board.columns
    return {
        str(m): (lo, hi, v)
        for m, lo, hi, v in zip(t["model"], t["ci_low"], t["ci_high"], t["rating"], strict=True)
    }


def one_sided(reps: int) -> None:
    import pandas as pd

    last_pooled, last_plain = [], []
    for r in range(reps):
        sim = simulate(
            SimulationSpec(n_models=8, n_instructions=60, strengths=STRENGTHS, judges=JUDGES, seed=2000 + r)
        )
        v = sim.verdicts
        worst = str(sim.strengths["model"].iloc[-1])
        fan = pd.concat([v[v["judge"] == "sharp"]] * 3, ignore_index=True).assign(judge="fan")
        coin = np.random.default_rng(r).choice([-2, 2], len(fan))
        fan["verdict"] = np.where(
            fan["model_a"] == worst, 2, np.where(fan["model_b"] == worst, -2, coin)
        ).astype("int8")
        store = VerdictStore.from_frame(pd.concat([v, fan], ignore_index=True))
        res = judge_pooling({j: store.counts(judge=j) for j in store.judges()}, rounds=0)
        rank = dict(zip(res.columns["model"], res.columns["rank"], strict=True))
        plain = dict(zip(res.columns["model"], res.columns["plain_rank"], strict=True))
        last_pooled.append(rank[worst] == 8)
        last_plain.append(plain[worst] == 8)
    print(
        f"one-sided judge (3x the calls, always picks the weakest model): the weakest model ranks last in "
        f"{100 * np.mean(last_pooled):.0f}% of {reps} tables pooled by reliability, {100 * np.mean(last_plain):.0f}% with plain pooling"
    )


def _page_parts(store, families, category):
    """(name, computation) of what the Judge page computes for one category."""
    from functools import partial

    from evalcore.judge import judge_sheets, length_preference_curve
    from evalcore.judge.pooling import pool_store

    def curves() -> list:
        return [length_preference_curve(store, j, category=category) for j in store.judges()]

    return (
        ("sheets", partial(judge_sheets, store, families=families, category=category, rounds=1000)),
        ("weights", partial(pool_store, store, category=category, rounds=200)),
        ("curves", curves),
    )


def page_timing(repeat: int) -> None:
    """Wall and CPU seconds of the Judge page's computations on the demo (see the docstring)."""
    import statistics

    from evalcore.present.judge import family_list

    root = Path(__file__).resolve().parents[1] / "data"
    print(f"load average at start: {os.getloadavg()}")
    figures: dict[str, dict[str, list[float]]] = {}
    for _ in range(repeat):
        store = VerdictStore()
        store.load_file(root / "demo_all_pairs.parquet")
        families = family_list((root / "demo_families.csv").read_text(), store.judges()).families
        for category in (None, *store.categories()):
            for part, work in _page_parts(store, families, category):
                wall, cpu = time.perf_counter(), time.process_time()
                work()
                row = figures.setdefault(f"{category or 'all categories'}: {part}", {"wall": [], "cpu": []})
                row["wall"].append(time.perf_counter() - wall)
                row["cpu"].append(time.process_time() - cpu)
    print(f"{'what (median of ' + str(repeat) + ')':<34} {'wall s':>8} {'cpu s':>8}")
    for key, row in figures.items():
        print(f"{key:<34} {statistics.median(row['wall']):8.3f} {statistics.median(row['cpu']):8.3f}")
    print(f"load average at end: {os.getloadavg()}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--page", action="store_true", help="time the Judge page's computations on the demo")
    ap.add_argument("--repeat", type=int, default=3, help="runs for --page")
    ap.add_argument("--reps", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--instructions", type=int, default=40)
    ap.add_argument("--panel", choices=sorted(PANELS), default="mixed", help="which judges")
    args = ap.parse_args()
    if args.page:
        page_timing(args.repeat)
        return
    run(args.reps, args.rounds, args.instructions, PANELS[args.panel])
    one_sided(min(args.reps, 20))


if __name__ == "__main__":
    main()
