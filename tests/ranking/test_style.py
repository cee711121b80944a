"""Style control: Markdown counting, the covariate Bradley–Terry fit, its intervals and refusals."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize

from evalcore.errors import DesignError, UsageError
from evalcore.features import (
    StyleRows,
    family_of,
    feature_pairs,
    markdown_counts,
    normalised_difference,
)
from evalcore.ranking import fit_bradley_terry
from evalcore.ranking.bradley_terry import ELO_SCALE
from evalcore.ranking.style import check_controls, style_control
from evalcore.schema import VerdictFormatError
from evalcore.simulate.tables import (
    JudgeSpec,
    SimulationSpec,
    arena_verdict_frame,
    simulate,
    simulate_arena,
)
from evalcore.stats.kendall import kendall_tau
from evalcore.store.store import VerdictStore

STYLE = ("length", "headers", "bold", "lists")

# -- Markdown counts ----------------------------------------------------------------------------


def _lmarena_counts(text: str) -> dict[str, int]:
    """LMArena's counter (arena-hard-auto add_markdown_info.py), written out with Python's re."""
    for block in re.findall(r"```([^`]*)```", text):
        text = text.replace(block, "")
    return {
        "headers": sum(len(re.findall(rf"^#{{{k}}}\s", text, re.MULTILINE)) for k in range(1, 7)),
        "lists": len(re.findall(r"^\s*\d+\.\s", text, re.MULTILINE))
        + len(re.findall(r"^\s*[-*+]\s", text, re.MULTILINE)),
        "bold": len(re.findall(r"\*\*[^*\n]+\*\*", text)) + len(re.findall(r"__[^_\n]+__", text)),
    }


TEXTS = [
    "# Title\n\nSome **bold** and __also__ text\n## Sub\n- a\n- b\n1. one\n  2. two",
    "```python\n# a comment, not a header\n- not a list\n```\nplain after code",
    "#no space is no header\n####### seven is no header\n###### six is",
    "**unclosed bold\n** across lines **\n* star item\n+ plus item",
    "",
    "\n\n- after blank lines\n\t3. tab-indented",
    "**a** **b** __c__ ***d***",
]


def test_markdown_counts_match_lmarena_counter():
    got = markdown_counts(TEXTS)
    for k, text in enumerate(TEXTS):
        want = _lmarena_counts(text)
        assert {name: int(got[name][k]) for name in want} == want, text


def test_markdown_counts_missing_text_is_nan():
    got = markdown_counts(["# x", None])
    assert got["headers"][0] == 1 and np.isnan(got["headers"][1])


def test_store_counts_text_in_sql_as_arrow_does():
    # The text columns come with the text contract; here they are added by hand to the table.
    frame = pd.DataFrame(
        {
            "instruction_id": [f"q{k}" for k in range(len(TEXTS))],
            "model_a": "x",
            "model_b": "y",
            "verdict": 1,
        }
    )
    store = VerdictStore()
    store.load(_canonical(frame))
    store.con.execute("ALTER TABLE verdicts ADD COLUMN response_a VARCHAR")
    store.con.execute("ALTER TABLE verdicts ADD COLUMN response_b VARCHAR")
    for k, text in enumerate(TEXTS):
        store.con.execute(
            "UPDATE verdicts SET response_a = ?, response_b = ? WHERE instruction_id = ?",
            [text, TEXTS[-1 - k], f"q{k}"],
        )
    assert store.feature_sources()["headers"] == "counted in the answers' text"
    assert store.feature_sources()["length"] == "the answers' text (characters)"
    rows = store.style_rows(features=("headers", "bold", "lists", "length"))
    want_a = markdown_counts(TEXTS)
    want_b = markdown_counts(TEXTS[::-1])
    names = ("headers", "bold", "lists")

    def records(fa, fb, length):  # one tuple per call: rows come in no particular order
        return sorted(zip(*(fa[k] for k in names), *(fb[k] for k in names), length, strict=True))

    got = records(rows.feature_a, rows.feature_b, rows.feature_a["length"])
    assert got == records(want_a, want_b, [float(len(t)) for t in TEXTS])


def test_normalised_difference_and_pairs():
    np.testing.assert_allclose(normalised_difference([3, 0, 1], [1, 0, 3]), [0.5, 0.0, -0.5])
    assert feature_pairs(["feat_tone_a", "feat_tone_b", "feat_x_a", "FEAT_Y_A", "feat_y_b"]) == ("tone", "y")


@pytest.mark.parametrize(
    ("name", "family"),
    [
        ("gpt-4-turbo", "openai"),
        ("claude-3-opus-20240229", "anthropic"),
        ("Qwen/Qwen2-72B-Instruct", "alibaba"),
        ("meta-llama/Meta-Llama-3-8B", "meta"),
        ("mistralai/some-finetune", "mistral"),
        ("o1-preview", "openai"),
        ("sim-oak", None),
    ],
)
def test_family_of(name, family):
    assert family_of(name) == family


# -- helpers ------------------------------------------------------------------------------------


def _canonical(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    out.insert(0, "row", np.arange(1, len(out) + 1))
    out["verdict"] = pd.array(out["verdict"], dtype="Int8")
    if "judge" not in out:
        out["judge"] = "J"
    out["human"] = pd.array([pd.NA] * len(out), dtype="Int8")
    for col in ("length_a", "length_b"):
        if col not in out:
            out[col] = np.nan
    out["category"] = pd.Series([pd.NA] * len(out), dtype="string")
    return out


def _rows_from_arena(sim, features=STYLE) -> StyleRows:
    """StyleRows straight from the simulation's arrays (one battle per instruction)."""
    n = sim.n_battles
    y = np.where(sim.outcome == 1, 1.0, np.where(sim.outcome == -1, 0.0, 0.5))
    return StyleRows(
        models=sim.models,
        judges=("arena",),
        n_instructions=n,
        inst=np.arange(n),
        a=sim.a.astype(np.int64),
        b=sim.b.astype(np.int64),
        judge=np.zeros(n, dtype=np.int64),
        y=y,
        n=np.ones(n),
        feature_a={f: sim.features_a[f] for f in features},
        feature_b={f: sim.features_b[f] for f in features},
        sources={f: "simulated" for f in features},
    )


def _both_orders_rows(theta, n_instructions, *, slot_bias, effect_sd=0.3, seed=0) -> StyleRows:
    """Every ordered pair on every instruction (both orders), logistic with a slot-A advantage
    and instruction-level effects per model (calls on one instruction are correlated)."""
    rng = np.random.default_rng(seed)
    theta = np.asarray(theta, dtype=float)
    m = theta.size
    aa, bb = np.nonzero(~np.eye(m, dtype=bool))
    inst = np.repeat(np.arange(n_instructions), aa.size)
    a = np.tile(aa, n_instructions)
    b = np.tile(bb, n_instructions)
    eff = rng.normal(0.0, effect_sd, (n_instructions, m))
    eta = theta[a] + eff[inst, a] - theta[b] - eff[inst, b] + slot_bias
    y = (rng.random(a.size) < 1.0 / (1.0 + np.exp(-eta))).astype(float)
    return StyleRows(
        models=tuple(f"m{k}" for k in range(m)),
        judges=("j",),
        n_instructions=n_instructions,
        inst=inst,
        a=a,
        b=b,
        judge=np.zeros(a.size, dtype=np.int64),
        y=y,
        n=np.ones(a.size),
        feature_a={},
        feature_b={},
        sources={},
    )


# -- the fit against an independent logistic regression -----------------------------------------


def test_hand_worked_case_matches_direct_logistic_regression():
    # 3 models, 6 instructions, lengths and slots varied by hand; ties count half.
    a = np.array([0, 1, 0, 2, 1, 2, 0, 1, 2, 0, 2, 1])
    b = np.array([1, 0, 2, 0, 2, 1, 1, 2, 0, 2, 1, 0])
    y = np.array([1, 0, 1, 0.5, 1, 0, 0, 1, 1, 1, 0, 0.5])
    la = np.array([300, 100, 250, 90, 400, 120, 80, 500, 300, 200, 150, 260.0])
    lb = np.array([100, 220, 100, 150, 100, 300, 240, 100, 100, 120, 90, 100.0])
    inst = np.array([0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5])
    rows = StyleRows(
        models=("x", "y", "z"),
        judges=("j",),
        n_instructions=6,
        inst=inst,
        a=a,
        b=b,
        judge=np.zeros(12, int),
        y=y,
        n=np.ones(12),
        feature_a={"length": la},
        feature_b={"length": lb},
        sources={"length": "hand"},
    )
    sc = style_control(rows, controls=["length", "position"])
    # Independent fit: an explicit design matrix (model x as the reference), scipy's BFGS.
    z = normalised_difference(la, lb)
    z = z / z.std()
    design = np.zeros((12, 4))
    for r in range(12):
        if a[r] > 0:
            design[r, a[r] - 1] += 1
        if b[r] > 0:
            design[r, b[r] - 1] -= 1
    design[:, 2] = z
    design[:, 3] = 1.0

    def nll(p):
        eta = design @ p
        return float(np.sum(np.logaddexp(0, eta) - y * eta))

    def grad(p):
        return design.T @ (1 / (1 + np.exp(-(design @ p))) - y)

    p = minimize(nll, np.zeros(4), jac=grad, method="BFGS", options={"gtol": 1e-10}).x
    theta = np.r_[0.0, p[:2]]
    got = sc.table.set_index("model").loc[["x", "y", "z"], "rating"].to_numpy()
    np.testing.assert_allclose(got - got.mean(), ELO_SCALE * (theta - theta.mean()), atol=1e-3)
    assert sc.coefficient("length").estimate.value == pytest.approx(p[2], abs=1e-6)
    assert sc.coefficient("position").estimate.value == pytest.approx(p[3], abs=1e-6)
    # The clustered sandwich, written out densely: H⁻¹ (Σ_c g_c g_cᵀ) H⁻¹ · C/(C − 1).
    prob = 1 / (1 + np.exp(-(design @ p)))
    h = design.T @ (design * (prob * (1 - prob))[:, None])
    g = np.stack([design[inst == c].T @ (prob - y)[inst == c] for c in range(6)])
    cov = np.linalg.inv(h) @ (g.T @ g) @ np.linalg.inv(h) * 6 / 5
    for k, name in ((2, "length"), (3, "position")):
        est = sc.coefficient(name).estimate
        assert (est.high - est.low) / 2 == pytest.approx(1.959963984540054 * np.sqrt(cov[k, k]), rel=1e-6)


def test_without_covariates_equals_the_plain_leaderboard_fit():
    sim = simulate_arena(n_battles=4000, n_models=8, tie_share=0.3, seed=3, style_effects={})
    rows = _rows_from_arena(sim)
    sc = style_control(rows, controls=["length"])
    wins = np.zeros((8, 8))
    np.add.at(wins, (rows.a, rows.b), rows.y)
    np.add.at(wins, (rows.b, rows.a), 1 - rows.y)
    theta, _ = fit_bradley_terry(wins)
    plain = sc.table.set_index("model").loc[list(sim.models), "rating_plain"].to_numpy()
    np.testing.assert_allclose(plain, 1000 + ELO_SCALE * theta, atol=1e-6)


# -- simulations with a known truth -----------------------------------------------------------


def test_injected_style_effects_recovered_with_nominal_coverage():
    truth = {"length": 0.8, "headers": 0.3, "bold": 0.0, "lists": 0.5}
    covered, total, errors = 0, 0, []
    for rep in range(30):
        sim = simulate_arena(
            n_battles=20_000, n_models=12, tie_share=0.0, seed=100 + rep, style_effects=truth, slot_bias=0.15
        )
        sc = style_control(_rows_from_arena(sim), controls=["length", "markdown", "position"])
        for name, effect in (*truth.items(), ("position", 0.15)):
            c = sc.coefficient(name)
            true_per_sd = effect * c.scale  # the fit reports per standard deviation of x
            covered += c.estimate.low <= true_per_sd <= c.estimate.high
            total += 1
        est = sc.table.set_index("model").loc[list(sim.models), "rating"].to_numpy()
        errors.append(np.abs((est - est.mean()) / ELO_SCALE - (sim.strengths - sim.strengths.mean())).max())
    # 150 intervals at 95%: below 88% would be a 4-sigma shortfall.
    assert covered / total >= 0.88, covered / total
    assert np.median(errors) < 0.1  # true strengths recovered (logit units; they span about ±2)


def test_style_control_changes_ranks_that_style_inflated():
    sim = simulate_arena(n_battles=60_000, n_models=12, tie_share=0.3, seed=7, style_effects={"length": 1.5})
    sc = style_control(_rows_from_arena(sim, ("length",)), controls=["length"])
    truth = sim.strengths
    controlled = sc.table.set_index("model").loc[list(sim.models), "rating"].to_numpy()
    plain = sc.table.set_index("model").loc[list(sim.models), "rating_plain"].to_numpy()
    assert kendall_tau(controlled, truth) > kendall_tau(plain, truth)
    assert (sc.table["rank_change"] != 0).any()


def test_no_injected_effect_leaves_the_ranking_alone():
    covers_zero, total, taus = 0, 0, []
    for rep in range(20):
        sim = simulate_arena(n_battles=20_000, n_models=12, tie_share=0.3, seed=500 + rep, style_effects={})
        sc = style_control(_rows_from_arena(sim), controls=["length", "markdown"])
        taus.append(sc.kendall_tau)
        for c in sc.coefficients:
            covers_zero += c.estimate.low <= 0 <= c.estimate.high
            total += 1
    assert np.median(taus) >= 0.95
    assert covers_zero / total >= 0.88, covers_zero / total


def test_position_recovered_on_both_orders_and_refused_on_anchor_only():
    theta = np.linspace(1.0, -1.0, 6)
    covered = 0
    for rep in range(20):
        rows = _both_orders_rows(theta, 60, slot_bias=0.4, seed=rep)
        est = style_control(rows, controls=["position"]).coefficient("position").estimate
        covered += est.low <= 0.4 <= est.high
    assert covered >= 17  # 20 intervals at 95%
    # Anchor-only, the reference always in slot B: refused in words.
    rows = _reference_in_slot_b(5, 40, seed=1)
    with pytest.raises(DesignError, match="always sit"):
        style_control(rows, controls=["position"])
    # Length control still works on that table (lengths vary within each model).
    assert style_control(rows, controls=["length"]).coefficient("length").estimate.has_interval


def test_family_refused_for_one_judge_and_measured_across_judges():
    families = {"sim-alder": "A", "sim-birch": "A", "sim-cedar": "B", "sim-dogwood": "B", "sim-elm": "C"}
    judges = (
        JudgeSpec("judge-a", family="A", self_preference=1.0),
        JudgeSpec("judge-b", family="B", self_preference=1.0),
    )
    families |= {"judge-a": "A", "judge-b": "B"}
    sim = simulate(SimulationSpec(n_models=5, n_instructions=150, judges=judges, families=families, seed=4))
    store = VerdictStore()
    store.load(sim.verdicts)
    one = store.style_rows(judge="judge-a")
    with pytest.raises(DesignError, match="one judge"):
        style_control(one, controls=["family"], families=families)
    pooled = store.style_rows(judge=None)
    est = style_control(pooled, controls=["family"], families=families).coefficient("family").estimate
    assert est.low > 0  # the injected self-preference is found
    with pytest.raises(UsageError, match="not recognised"):
        style_control(pooled, controls=["family"])  # "judge-a" names no known family


def test_tiny_table_with_models_that_never_meet():
    frame = pd.DataFrame(
        {
            "instruction_id": ["q1", "q1", "q2", "q2", "q3", "q3"],
            "model_a": ["w", "x", "y", "z", "w", "y"],
            "model_b": ["x", "w", "z", "y", "x", "z"],
            "verdict": [1, -1, 1, 0, 2, -1],
            "length_a": [300, 120, 80, 100, 200, 90],
            "length_b": [100, 310, 100, 80, 150, 110],
        }
    )
    store = VerdictStore()
    store.load(_canonical(frame))
    sc = style_control(store.style_rows(features=("length",)), controls=["length", "position"])
    assert any("never met" in n for n in sc.notes)
    assert any("instructions" in n for n in sc.notes)
    assert set(sc.table["model"]) == {"w", "x", "y", "z"}


# -- data access and validation --------------------------------------------------------------


def test_answers_loaded_from_a_file_supply_markdown_from_the_text_table(tmp_path):
    # A file's text lives in the store's text table (on disk), not in the verdicts table: the
    # Markdown control must still count it, and count the same as on the answers themselves.
    frame = pd.DataFrame(
        {
            "instruction_id": [f"q{k}" for k in range(len(TEXTS))],
            "model_a": "x",
            "model_b": "y",
            "verdict": 1,
            "response_a": TEXTS,
            "response_b": TEXTS[::-1],
        }
    )
    path = tmp_path / "text.parquet"
    frame.to_parquet(path)
    store = VerdictStore()
    store.load_file(path)
    assert "response_a" not in {r[0] for r in store.con.execute("DESCRIBE verdicts").fetchall()}
    assert store.feature_sources()["bold"] == "counted in the answers' text"
    rows = store.style_rows(features=("bold",))
    want = sorted(zip(markdown_counts(TEXTS)["bold"], markdown_counts(TEXTS[::-1])["bold"], strict=True))
    assert sorted(zip(rows.feature_a["bold"], rows.feature_b["bold"], strict=True)) == want
    store.close()


def test_feat_columns_load_from_a_file_and_supply_markdown(tmp_path):
    sim = simulate_arena(n_battles=3000, n_models=6, seed=2, style_effects={"lists": 1.0})
    path = tmp_path / "arena.csv"
    arena_verdict_frame(sim).drop(columns=["row"]).to_csv(path, index=False)
    store = VerdictStore()
    store.load_file(path)
    sources = store.feature_sources()
    assert sources["lists"] == "feat_lists_a, feat_lists_b"
    rows = store.style_rows(judge="arena", features=("headers", "bold", "lists"))
    assert rows.calls == 3000
    assert style_control(rows, controls=["markdown"]).coefficient("lists").estimate.low > 0


def test_bad_feat_values_are_refused_with_rows(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text(
        "instruction_id,model_a,model_b,verdict,feat_bold_a,feat_bold_b\nq1,x,y,1,2,-1\nq2,x,y,1,two,0\n"
    )
    with pytest.raises(VerdictFormatError, match="feat_bold_a.*numbers.*row 2"):
        VerdictStore().load_file(path)


def test_missing_feature_and_unknown_control_explained():
    store = VerdictStore()
    store.load(
        _canonical(
            pd.DataFrame({"instruction_id": ["q"], "model_a": ["x"], "model_b": ["y"], "verdict": [1]})
        )
    )
    with pytest.raises(UsageError, match="cannot supply"):
        store.style_rows(features=("headers",))
    with pytest.raises(UsageError, match="choose from length, markdown, position, family"):
        check_controls("length,colour")
    assert check_controls("Length, position") == ("length", "position")


@pytest.mark.parametrize("chunk", [7, 4_000_000])
def test_clustered_meat_equals_the_dense_sum_of_outer_products(monkeypatch, chunk):
    from scipy import sparse

    from evalcore.ranking import intervals

    monkeypatch.setattr(intervals, "MEAT_CHUNK_PAIRS", chunk)
    rng = np.random.default_rng(0)
    n, m, f = 4000, 15, 3
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    cluster = rng.integers(0, 120, n) * 5  # gaps in the ids, several rows per cluster
    x = rng.normal(size=(n, f))
    r = rng.normal(size=n)
    meat, n_c = intervals._clustered_meat(a, b, x, r, cluster, m)
    rows = np.concatenate([cluster, cluster, np.repeat(cluster, f)])
    cols = np.concatenate([a, b, np.tile(np.arange(m, m + f), n)])
    vals = np.concatenate([r, -r, (r[:, None] * x).ravel()])
    g = sparse.csr_matrix((vals, (rows, cols)), shape=(cluster.max() + 1, m + f)).toarray()
    np.testing.assert_allclose(meat, g.T @ g, atol=1e-9)
    assert n_c == np.unique(cluster).size


def test_clustered_meat_one_row_per_cluster_matches_the_general_path():
    from evalcore.ranking import intervals

    rng = np.random.default_rng(1)
    n, m, f = 3000, 9, 2
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    x = rng.normal(size=(n, f))
    r = rng.normal(size=n)
    fast, _ = intervals._clustered_meat(a, b, x, r, np.arange(n) * 3, m)
    # the general path, each cluster given a second row with zero residual
    ids = np.r_[np.arange(n), np.arange(n)]
    general, _ = intervals._clustered_meat(np.r_[a, a], np.r_[b, b], np.r_[x, x], np.r_[r, 0 * r], ids, m)
    np.testing.assert_allclose(fast, general, atol=1e-9)


def test_dataset_facade_style_control(tmp_path):
    import evalcore

    sim = simulate_arena(n_battles=3000, n_models=5, seed=9, style_effects={"length": 1.0})
    path = tmp_path / "a.parquet"
    arena_verdict_frame(sim).drop(columns=["row"]).to_parquet(path)
    ds = evalcore.load(path)
    sc = ds.style_control(controls="length")
    assert sc.controls == ("length",) and sc.coefficient("length").estimate.low > 0
    assert set(sc.as_dict()) >= {"coefficients", "models", "top_changed", "kendall_tau_with_uncontrolled"}
    with pytest.raises(UsageError, match="category"):
        ds.style_control(controls="length", category="nope")


def test_ratings_are_estimates_matching_the_table():
    sim = simulate_arena(n_battles=3000, n_models=5, seed=8, style_effects={"length": 0.5})
    sc = style_control(_rows_from_arena(sim, ("length",)), controls=["length"])
    est = sc.ratings
    assert list(est) == sc.table["model"].tolist()
    first = sc.table.iloc[0]
    assert est[first["model"]] == sc.rating(first["model"])
    assert est[first["model"]].low == pytest.approx(first["ci_low"]) and est[first["model"]].has_interval


def test_markdown_counts_of_a_copied_table_read_the_lenders_text_without_copying_it(tmp_path):
    # A session's copy of the demo borrows its text; Markdown counts are read where it lives.
    from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate

    sim = simulate(SimulationSpec(n_models=4, n_instructions=12, judges=(JudgeSpec("j"),), seed=3, text=True))
    sim.verdicts.to_parquet(tmp_path / "t.parquet")
    lender = VerdictStore()
    table = lender.load_file(tmp_path / "t.parquet")
    borrower = VerdictStore()
    borrower.load(table)
    features = ("headers", "bold", "lists", "length")
    want, got = (s.style_rows(features=features) for s in (lender, borrower))
    assert borrower.text.folder is None  # the text was not copied
    assert sum(want.feature_a[name].sum() for name in features[:3]) > 0
    for name in features[:3]:
        np.testing.assert_array_equal(got.feature_a[name], want.feature_a[name])
        np.testing.assert_array_equal(got.feature_b[name], want.feature_b[name])
    # and by hand, for the calls as stored
    text = lender.con.sql(f'SELECT response_a FROM {lender.text.current} ORDER BY "row"').df()
    assert sorted(want.feature_a["bold"]) == sorted(markdown_counts(list(text["response_a"]))["bold"])
    lender.close()
    borrower.close()


def _reference_in_slot_b(n_models: int, n_instructions: int, *, seed: int):
    """Style rows of an anchor-only table with the reference always in slot B (lengths only)."""
    spec = SimulationSpec(
        n_models=n_models,
        n_instructions=n_instructions,
        design="anchor",
        both_orders=False,
        anchor_slot="b",
        seed=seed,
    )
    store = VerdictStore()
    store.load(simulate(spec).verdicts)
    return store.style_rows(judge="sim-judge", features=("length",))


def test_the_refusal_names_five_models_in_one_slot_and_counts_the_rest():
    rows = _reference_in_slot_b(8, 30, seed=2)
    with pytest.raises(DesignError, match="always sit in one slot") as info:
        style_control(rows, controls=["position"])
    named = str(info.value).split(" always sit")[0].split(": ")[-1]
    assert named.endswith(" and 3 more") and named.count(",") == 4  # 8 models in one slot each
