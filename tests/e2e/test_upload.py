"""Upload through the real drop zone; a bad file keeps the data; save and reopen by link."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, quote, urlparse

import pytest

from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate

pytest.importorskip("playwright.sync_api")
from playwright.sync_api import expect  # noqa: E402

pytestmark = pytest.mark.e2e

MODELS = ("up-alpha", "up-bravo", "up-charlie", "up-delta")
TIMEOUT = 90_000


def chart_text(page) -> set[str]:
    """Every text drawn in the page's Plotly charts (tick labels, hover-free)."""
    page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for(state="visible", timeout=TIMEOUT)
    return set(page.locator('[data-testid="stPlotlyChart"] text').all_text_contents())


@pytest.fixture(scope="module")
def good_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sim = simulate(
        SimulationSpec(
            n_models=4, n_instructions=25, model_names=MODELS, judges=(JudgeSpec("up-judge"),), seed=11
        )
    )
    path = tmp_path_factory.mktemp("upload") / "good_verdicts.csv"
    sim.verdicts.drop(columns=["row"]).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def bad_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("upload") / "bad_verdicts.csv"
    path.write_text("instruction_id,model_a,model_b,score\nq1,x,y,3\n")
    return path


def test_upload_shows_the_leaderboard_and_a_bad_file_keeps_the_data(
    page, st_app, good_csv: Path, bad_csv: Path
) -> None:
    st_app.open(page, "/")
    st_app.upload(page, good_csv)
    expect(page.get_by_text("Loaded: good_verdicts.csv")).to_be_visible(timeout=TIMEOUT)
    st_app.wait_idle(page)
    st_app.assert_no_exception(page)
    assert "dataset" not in parse_qs(urlparse(page.url).query)  # an upload is not in the URL

    st_app.navigate(page, "Leaderboard")
    labels = chart_text(page)
    assert set(MODELS) <= labels
    assert not any(label.startswith("sim-") for label in labels)  # the demo is gone
    st_app.assert_no_exception(page)
    st_app.screenshot(page, "upload_leaderboard")

    st_app.navigate(page, "Data")
    st_app.upload(page, bad_csv)
    error = page.get_by_test_id("stAlert").filter(has_text="This file was not loaded")
    expect(error).to_be_visible(timeout=TIMEOUT)
    st_app.wait_idle(page)
    expect(error).to_contain_text("verdict")  # names the missing column
    expect(error).to_contain_text("good_verdicts.csv")  # … and says the old data is kept
    expect(page.get_by_text("Loaded: good_verdicts.csv")).to_be_visible()
    st_app.assert_no_exception(page)
    st_app.screenshot(page, "upload_bad_file")

    st_app.navigate(page, "Leaderboard")
    assert set(MODELS) <= chart_text(page)


def test_saved_dataset_opens_from_a_link_in_another_session(
    page, browser, st_app, base_url: str, good_csv: Path
) -> None:
    name = "e2e 'quoted'; DROP TABLE datasets; --"
    st_app.open(page, "/?dataset=demo-anchor")  # the small demo: this test is about saving
    st_app.upload(page, good_csv)
    expect(page.get_by_text("Loaded: good_verdicts.csv")).to_be_visible(timeout=TIMEOUT)
    st_app.wait_idle(page)

    page.get_by_test_id("stExpander").filter(has_text="Saved datasets").locator("summary").click()
    field = page.get_by_label("Save the loaded data as")
    field.fill(name)
    page.get_by_test_id("stBaseButton-secondaryFormSubmit").filter(has_text="Save").click()
    success = page.get_by_test_id("stAlert").filter(has_text="Saved as")
    expect(success).to_be_visible(timeout=TIMEOUT)
    expect(success).to_contain_text(f"Saved as {name} (version 1, 300 rows)")  # shown literally
    st_app.wait_idle(page)
    st_app.assert_no_exception(page)
    assert parse_qs(urlparse(page.url).query).get("dataset") == [name]
    st_app.screenshot(page, "saved_dataset")

    other = browser.new_context(base_url=base_url, viewport={"width": 1400, "height": 1000})
    try:
        fresh = other.new_page()
        st_app.open(fresh, f"/leaderboard?dataset={quote(name)}&judge=up-judge")
        st_app.assert_no_exception(fresh)
        assert set(MODELS) <= chart_text(fresh)
        expect(fresh.get_by_role("combobox", name="Judge")).to_have_value("up-judge")
    finally:
        other.close()
