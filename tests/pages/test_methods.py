"""The Methods page: the bundled docs/methods.md read at run time, every reference with its
authors, year and title, and the Overview's links into it."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from evalcore.findings import METHOD_SECTIONS
from evalcore.present.methods import parse_methods, read_methods
from tests.conftest import new_app


def test_every_reference_has_authors_year_and_title():
    doc = read_methods()
    assert len(doc.references) >= 20
    for ref in doc.references:
        assert ref.authors and ref.title, ref
        assert re.fullmatch(r"\d{4}[a-z]?", ref.year), ref
    bt = next(r for r in doc.references if r.authors.startswith("Bradley"))
    assert (bt.year, bt.title) == (
        "1952",
        "Rank analysis of incomplete block designs: I. The method of paired comparisons",
    )
    assert bt.published.startswith("Biometrika")


def test_sections_carry_no_links_to_documentation_files():
    doc = read_methods()
    assert {s.slug for s in doc.sections} >= set(METHOD_SECTIONS.values())
    for text in [doc.intro] + [s.body for s in doc.sections]:
        assert not re.search(r"\]\([^)]*\)", text), text  # links shown as their words
        assert ".md" not in re.sub(r"https?://\S+", "", text)


def test_parse_keeps_a_section_body_and_a_book_title():
    doc = parse_methods(
        "# M\n\nIntro.\n\n## A b: c\n\nText [x](#y).\n\n## References\n\n- Efron, B. (1993). *The Bootstrap*. Chapman.\n"
    )
    assert doc.section("a-b-c").body == "Text x."
    assert doc.references[0].title == "The Bootstrap" and doc.references[0].published == "Chapman"


@pytest.fixture(scope="module")
def methods_page() -> AppTest:  # not `page`: that name is pytest-playwright's browser page
    at = new_app(timeout=60)
    at.run()
    at.switch_page("pages/methods.py").run()
    assert not at.exception
    return at


def test_page_shows_sections_and_references(methods_page):
    doc = read_methods()
    headings = [h.value for h in methods_page.header]
    assert headings == [s.title for s in doc.sections] + ["Glossary of reported quantities", "References"]
    shown = "\n".join(m.value for m in methods_page.markdown)
    items = [line for line in shown.splitlines() if re.match(r"- .+ \(\d{4}[a-z]?\)\. \*\*", line)]
    assert len(items) == len(doc.references)
    rogan = (
        "- Rogan, W. J., & Gladen, B. (1978). **Estimating prevalence from the results of a screening test**."
    )
    assert rogan in shown
    assert "docs/" not in shown and "definitions.md" not in shown
    assert not re.search(r"\bseed \d{3}\b", shown)  # internal source documents are never cited


def test_a_link_opens_its_section_first():
    at = new_app(timeout=60)
    at.run()
    at.query_params["section"] = "anchor-selection"
    at.switch_page("pages/methods.py").run()
    assert not at.exception
    assert at.subheader[0].value == "Anchor selection"
