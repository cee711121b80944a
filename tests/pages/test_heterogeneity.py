"""AppTest: the Leaderboard's "one ranking for every category?" section and the Overview's line
(in its leader finding) say what the library says: nothing alarming on the demo (random
categories), a reversal in words on a table with a planted category swap."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.ranking.heterogeneity import store_heterogeneity
from evalcore.ranking.split_half import split_half_stability
from evalcore.simulate.arena import ARENA_LANGUAGES, arena_verdict_frame, simulate_arena
from tests.conftest import open_page, open_tab
from ui.leaderboard_view import CATEGORY_HEADING as HEADING
from ui.state import DEFAULT_DEMO, DEMO_JUDGE


def _texts(at) -> list[str]:
    return [x.value for kind in ("info", "warning", "markdown", "caption") for x in at.get(kind)]


def test_leaderboard_section_says_the_library_sentence(demo_store):
    at = open_page("pages/leaderboard.py")
    stability = next(c.value for c in at.caption if c.value.startswith("Stability: "))  # above the tabs
    open_tab(at, "lb_tab", "Categories")  # the page draws its open tab only
    assert HEADING in [h.value for h in at.subheader]
    judge = DEMO_JUDGE[DEFAULT_DEMO]
    expected = store_heterogeneity(demo_store, judge=judge)
    assert not expected.reversals  # the demo's categories are random labels
    assert any(expected.sentence().split(" (")[0] in t for t in _texts(at))
    # the per-category tests: the table headed by the category
    shown = next(d.value for d in at.dataframe if "Category" in d.value.columns)
    assert shown["Category"].tolist() == list(expected.categories)
    assert stability.startswith(
        "Stability: " + split_half_stability(demo_store.counts(judge=judge)).sentence()
    )


@pytest.mark.usefixtures("small_demo")  # replaced by an upload at once
def test_a_planted_swap_is_said_in_words_on_both_pages():
    m = 5
    effects = np.zeros((len(ARENA_LANGUAGES), m))
    effects[1, 0], effects[1, 1] = -1.5, 1.5  # the two best models swap places in Chinese
    sim = simulate_arena(n_battles=6_000, n_models=m, n_voters=100, seed=7, category_effects=effects)
    csv = arena_verdict_frame(sim, with_category=True).drop(columns=["row"]).to_csv(index=False)
    at = open_page()
    at.file_uploader(key="upload").upload("planted.csv", csv.encode(), "text/csv").run()
    assert not at.exception
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    # the leader finding says it (and so does the report, which embeds the findings)
    assert any("hides a reversal" in x.value and "Chinese" in x.value for x in at.markdown)
    at.switch_page("pages/leaderboard.py").run()
    assert not at.exception
    open_tab(at, "lb_tab", "Categories")
    assert any("hides a reversal" in w.value for w in at.warning)
    assert any("sim-arena-000" in str(df.value.values) for df in at.dataframe[1:])
