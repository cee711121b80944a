"""The Leaderboard page's words: table cells, interval choice, download frames."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from evalcore.counts import VerdictCounts
from evalcore.errors import UsageError
from evalcore.present import ranking as show
from evalcore.ranking import leaderboard, separation


def _counts(models, cells):
    """Cells: (instruction, a, b, level index) with one call each."""
    inst = np.array([c[0] for c in cells], dtype=np.int32)
    a = np.array([c[1] for c in cells], dtype=np.int32)
    b = np.array([c[2] for c in cells], dtype=np.int32)
    n = np.zeros((len(cells), 5), dtype=np.int32)
    n[np.arange(len(cells)), [c[3] for c in cells]] = 1
    return VerdictCounts.from_cells(
        models=tuple(models),
        instructions=tuple(f"i{i}" for i in range(inst.max() + 1)),
        judge="j",
        inst=inst,
        a=a,
        b=b,
        n=n,
    )


def _mixed(models=("model", "row model", "x"), n=60, seed=0):
    rng = np.random.default_rng(seed)
    cells = []
    m = len(models)
    for i in range(n):
        a, b = rng.choice(m, 2, replace=False)
        cells.append((i, int(a), int(b), int(rng.integers(0, 5))))
    return _counts(models, cells)


def test_default_interval_switches_above_the_limit():
    assert show.default_interval(show.BOOTSTRAP_LIMIT) == "bootstrap"
    assert show.default_interval(show.BOOTSTRAP_LIMIT + 1) == "sandwich"
    assert show.interval_from_label("Sandwich (clustered, fast)") == "sandwich"
    with pytest.raises(UsageError):
        show.interval_from_label("jackknife")


def test_table_has_human_columns_no_missing_cells_and_matches_the_board():
    board = leaderboard(_mixed(), rounds=200, seed=1)
    sep = separation(board)
    t = show.display_table(board, sep)
    assert list(t.columns[:4]) == ["Rank", "Model", "Rating", "95% interval"]
    assert "Tier" in t.columns and not t.isna().any().any()
    for cell, lo, hi in zip(t["95% interval"], board.table["ci_low"], board.table["ci_high"], strict=True):
        assert cell == f"{lo:,.0f} – {hi:,.0f}"
    assert t["Rating"].tolist() == [f"{r:,.0f}" for r in board.table["rating"]]


def test_one_sided_ratings_are_said_in_words():
    # "a" beats everyone, never loses; "c" never scores; "b" in between.
    cells = [(0, 0, 1, 4), (1, 0, 2, 4), (2, 1, 2, 4), (3, 1, 2, 3), (4, 0, 1, 3), (5, 1, 2, 4)]
    board = leaderboard(_counts(("a", "b", "c"), cells), rounds=50, seed=0)
    t = show.display_table(board).set_index("Model")
    assert t.loc["a", "One-sided"] == "at least (never lost)"
    assert t.loc["a", "95% interval"].startswith("at least ")
    assert t.loc["c", "One-sided"] == "at most (never won)"
    assert t.loc["c", "95% interval"].startswith("at most ")
    assert t.loc["b", "One-sided"] == "—"


def test_without_rounds_the_interval_cell_is_a_dash_not_nan():
    board = leaderboard(_mixed(), rounds=0, seed=0)
    t = show.display_table(board)
    assert set(t["95% interval"]) == {"—"}
    assert not t.isna().any().any()


def test_matrix_frame_survives_a_model_named_model():
    board = leaderboard(_mixed(), rounds=0, seed=0)
    with pytest.raises(ValueError):  # the bug this replaces
        board.win_rate_matrix.reset_index(names="model")
    frame = show.matrix_frame(board.win_rate_matrix)
    assert frame.columns[0] == "row model (row)"
    assert list(frame.columns[1:]) == list(board.win_rate_matrix.columns)
    assert frame.iloc[:, 0].tolist() == list(board.win_rate_matrix.index)


def test_separation_caption_names_the_control_and_the_pairs_frame_is_complete():
    board = leaderboard(_mixed(("a", "b", "c", "d"), n=200), rounds=200, seed=0)
    sep = separation(board)
    text = show.separation_caption(sep)
    assert "Holm, family-wise 5%" in text
    assert f"of {len(sep.pairs)} pairs" in text
    frame = show.pairs_frame(sep)
    assert len(frame) == math.comb(4, 2)
    assert set(frame["Separated"]) <= {"yes", "no"}
    bh = separation(board, correction="bh")
    assert "Benjamini–Hochberg" in show.separation_caption(bh)


def test_method_caption_says_which_interval():
    counts = _mixed()
    assert "bootstrap rounds" in show.method_caption(leaderboard(counts, rounds=50, seed=0))
    assert "sandwich" in show.method_caption(leaderboard(counts, rounds=50, seed=0, interval="sandwich"))


def test_method_caption_states_the_measured_coverage_not_95():
    """Issue 25, item 8: 95% is nominal; at 30 instructions the measured coverage is quoted."""
    counts = _mixed()
    text = show.method_caption(leaderboard(counts, rounds=50, seed=0))
    assert "covered the truth 93.1% of the time at 30 instructions" in text
    text = show.method_caption(leaderboard(counts, rounds=50, seed=0, interval="sandwich"))
    assert "covered the truth 94.4% of the time at 30 instructions" in text


def test_separation_heatmap_marks_separated_pairs():
    from evalcore.plots.leaderboard import separation_heatmap

    # a strong gap: "top" beats "bottom" on every one of many instructions
    cells = [(i, 0, 1, 4) if i % 4 else (i, 0, 1, 2) for i in range(200)]
    cells += [(200 + i, 1, 2, (i % 5)) for i in range(200)]
    board = leaderboard(_counts(("top", "mid", "bottom"), cells), rounds=200, seed=0)
    sep = separation(board)
    fig = separation_heatmap(sep)
    text = np.asarray(fig.data[0].text)
    separated = sep.pairs[sep.pairs["separated"]]
    assert len(separated) >= 1
    order = list(sep.tiers["model"])
    for r in separated.itertuples():
        assert text[order.index(r.model_1), order.index(r.model_2)] == "●"
    assert pd.isna(fig.data[0].z[0][0])


def test_models_that_never_meet_get_parts_and_no_empty_cells():
    from evalcore.plots.leaderboard import separation_heatmap

    rng = np.random.default_rng(3)
    cells = [(i, int(i % 2 == 0), int(i % 2 == 1), int(rng.integers(0, 5))) for i in range(40)]  # a, b
    cells += [
        (40 + i, 2 + int(i % 2 == 0), 2 + int(i % 2 == 1), int(rng.integers(0, 5))) for i in range(40)
    ]  # c, d
    board = leaderboard(_counts(("a", "b", "c", "d"), cells), rounds=100, seed=0)
    sep = separation(board)
    t = show.display_table(board, sep)
    assert "Part" in t.columns and set(t["Part"]) == {1, 2}
    assert not t.isna().any().any()
    # pairs across parts have no test: never separated, shown without a mark
    across = sep.pairs[sep.pairs["p_value"].isna()]
    assert len(across) == 4 and not across["separated"].any()
    fig = separation_heatmap(sep)
    assert "●" not in {str(x) for x in np.asarray(fig.data[0].text)[0:2, 2:4].ravel()}


def test_anchor_only_table_reads_in_words():
    # every model meets only the anchor, always in slot B (unbalanced)
    rng = np.random.default_rng(5)
    models = ("anchor", "m1", "m2", "m3")
    cells = [(i, 0, 1 + i % 3, int(rng.integers(0, 5))) for i in range(90)]
    board = leaderboard(_counts(models, cells), rounds=100, seed=0, interval="sandwich")
    t = show.display_table(board, separation(board))
    assert set(t["Model"]) == set(models) and not t.isna().any().any()
    assert "sandwich" in show.method_caption(board)


def test_style_display_orders_by_controlled_rank_and_marks_changes():
    from evalcore.present import ranking as show
    from evalcore.present import style as style_show
    from evalcore.ranking import leaderboard
    from evalcore.ranking.style import controlled_leaderboard
    from evalcore.simulate.tables import arena_verdict_frame, simulate_arena
    from evalcore.store.store import VerdictStore

    sim = simulate_arena(n_battles=6000, n_models=6, seed=11, style_effects={"length": 2.0})
    frame = arena_verdict_frame(sim)
    frame.loc[frame["model_a"] == "sim-arena-005", "length_a"] = np.nan  # a model without lengths
    frame.loc[frame["model_b"] == "sim-arena-005", "length_b"] = np.nan
    store = VerdictStore()
    store.load(frame)
    board = leaderboard(store.counts(judge="arena"), rounds=0)
    styled = controlled_leaderboard(store, judge="arena", controls="length")
    assert "sim-arena-005" not in styled.models and styled.dropped > 0
    shown = style_show.style_display(show.display_table(board), styled)
    assert shown["Model"].tolist()[:5] == styled.table["model"].tolist()
    assert shown["Rank"].tolist() == ["1", "2", "3", "4", "5", "—"]
    for change, text in zip(styled.table["rank_change"], shown["Rank change"][:5], strict=True):
        assert text == ("=" if change == 0 else f"▲ {change}" if change > 0 else f"▼ {-change}")
    assert shown["Rank change"].iloc[-1] == "—"
    caption = style_show.style_caption(styled)
    assert "Controlling for style" in caption and "Length:" in caption


@pytest.mark.parametrize("n_models", [6, 120])  # a dense board and one over the pairs
def test_the_pairs_win_rates_are_the_matrix_s_cells_where_the_pair_met(n_models):
    from evalcore.present.ranking import pair_win_rates_frame
    from evalcore.ranking import leaderboard
    from evalcore.simulate.arena import arena_verdict_frame, simulate_arena
    from evalcore.store.store import VerdictStore

    frame = arena_verdict_frame(simulate_arena(n_battles=1500, n_models=n_models, seed=2))
    store = VerdictStore()
    cols = ["instruction_id", "model_a", "model_b", "verdict", "judge"]
    store.load_bytes(frame[cols].to_csv(index=False).encode(), name="t.csv")
    board = leaderboard(store.counts(), rounds=0)
    rates, battles = board.win_rate_matrix, board.battles_matrix
    got = pair_win_rates_frame(board)
    assert len(got) == int((battles.to_numpy() > 0).sum())  # every ordered pair that met, once
    for row in got.itertuples():
        assert row.battles == battles.loc[row.model, row.opponent]
        assert row.win_rate == pytest.approx(rates.loc[row.model, row.opponent])


def test_many_models_draw_one_mark_layer_in_webgl_with_the_same_cells(monkeypatch):
    """Above WEBGL_CELLS cells the separation's dots and the win-rate map's click targets are one
    WebGL layer (no SVG element a cell), on the same cells as the SVG drawing of fewer cells."""
    from evalcore.plots import leaderboard as plots

    rng = np.random.default_rng(4)
    models = tuple(f"m{k}" for k in range(6))
    cells = [
        (i, a, b, int(rng.integers(0, 5))) for i in range(300) for a, b in [rng.choice(6, 2, replace=False)]
    ]
    cells += [(300 + i, 0, 5, 4) for i in range(60)]  # m0 far ahead of m5
    board = leaderboard(_counts(models, cells), rounds=100, seed=0)
    sep = separation(board)
    svg_sep, svg_win = plots.separation_heatmap(sep), plots.win_rate_heatmap(board, clickable=True)
    monkeypatch.setattr(plots, "WEBGL_CELLS", 36)
    gl_sep, gl_win = plots.separation_heatmap(sep), plots.win_rate_heatmap(board, clickable=True)
    # the dots: text marks before, WebGL markers on exactly the marked cells now
    marked = {
        (str(y), str(x))
        for y, row in zip(svg_sep.data[0].y, np.asarray(svg_sep.data[0].text), strict=True)
        for x, t in zip(svg_sep.data[0].x, row, strict=True)
        if t == "●"
    }
    assert marked and not {str(t) for t in np.asarray(gl_sep.data[0].text).ravel()} - {""}
    assert gl_sep.data[1].type == "scattergl"
    assert set(zip(gl_sep.data[1].y, gl_sep.data[1].x, strict=True)) == marked
    # the click targets: the same points, customdata and words, in WebGL
    assert svg_win.data[1].type == "scatter" and gl_win.data[1].type == "scattergl"
    for key in ("x", "y", "customdata", "hovertemplate"):
        assert gl_win.data[1][key] == svg_win.data[1][key]


def test_the_win_rate_heatmap_ships_no_data_it_does_not_show():
    # the colour layer answers no hover (the cell layer above it does, with the counts): it
    # carries the rates only, not a second copy of every cell's count
    from evalcore.plots import leaderboard as plots

    cells = [(i, a, b, (i % 5)) for i in range(60) for a, b in [(i % 4, (i + 1) % 4)]]
    board = leaderboard(_counts([f"m{k}" for k in range(4)], cells), rounds=0)
    heat, layer = plots.win_rate_heatmap(board, clickable=True).data
    assert heat.type == "heatmap" and heat.hoverinfo == "skip" and heat.customdata is None
    assert all(len(c) == 4 for c in layer.customdata)  # row, column, rate, battles
