"""The Methods page: the bundled docs/methods.md read at run time, every reference with its
authors, year and title, and the Overview's links into it."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from evalcore import quantities
from evalcore.findings import METHOD_SECTIONS
from evalcore.present.methods import for_stakeholders, parse_methods, read_methods
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


#: What a stakeholder should not meet on the Methods page: a file or module name, a benchmark
#: script or command, a code name in backticks (an underscore or a call's brackets), and the signs
#: of a formula: Greek letters, mathematical operators and arrows, super- and subscripts,
#: a binary minus ("a − b"), ±, ×, ·, √, ½, ⌈⌉, a transpose or a hat, a name with an underscore,
#: a function of symbols ("I(p, A)"), and a paper's section, figure or table number (the reference
#: list names the paper; a stakeholder cannot follow "§4.3"). "≈" is one of them: the page
#: says "about", a word anyone reads; "%" and a minus sign before a number ("−1.2") stay.
NOT_PLAIN = re.compile(
    r"\.py\b|\bevalcore\.|\bbenchmarks[/.]|\bbench_|python -m|`[^`\n]*[_()][^`\n]*`"
    r"|[\u0370-\u03ff\u2190-\u21ff\u2200-\u2211\u2213-\u22ff\u2070-\u209f\u2308-\u230b±×·÷√½ᵀ\u0302^]|ties/2|\S − "
    r"|\b[A-Za-z]+_[A-Za-z0-9]+\b|\b[A-Z]\([a-zA-Z, |]+\)"  # a code name or a function of symbols
    r"|§|\bFig\. ?\d|\bApp\. [A-Z]\b|\bTable \d|\bListing \d"  # a paper's section, figure or table
    r"|\S = \S|(?:^|[\s(])--[a-z]"  # an equation; a command-line option
)


def not_plain(text: str) -> list[str]:
    """Each place in ``text`` that is not plain words, with a little context (a web address, as a
    reference's software gives, is left as written)."""
    text = re.sub(r"\b[\w.-]+\.(com|org|io)/\S*", "", text)
    return [text[max(0, m.start() - 30) : m.end() + 30].replace("\n", " ") for m in NOT_PLAIN.finditer(text)]


def test_the_checker_finds_code_names_and_formulas():
    planted = (
        "From 100 models (`evalcore.ranking.sparse_fit`) see benchmarks/bench_budget.py, "
        "`leaderboard(..., interval=...)`, run `python -m benchmarks.bench_ppi`; "
        "Σ_k ε_k g_k, V₀ = 250, ρ ≈ 0.5, n ≥ 30, a − b, I(p, A) (§4.3, Fig. 3, App. C), p = 2/8, rank --as-of DATE."
    )
    assert len(not_plain(planted)) >= 15
    assert not_plain("Strengths between −1.2 and 0.6, 95% intervals, about 250, tau-b, top-1.") == []


def test_passages_for_developers_stay_in_the_docs_and_off_the_page():
    doc = parse_methods(
        "# M\n\nIntro.<!-- for developers --> Code in `x.py`.<!-- /for developers -->\n\n"
        "## A\n\nPlain words.\n\n<!-- for developers -->\nThe formula Σ p².\n"
        "<!-- /for developers -->\n\nMore words.\n\n## References\n\n"
        "- Elo, A. E. (1978). *The Rating of Chessplayers*. Arco.\n"
    )
    assert doc.intro == "Intro."
    assert doc.sections[0].body == "Plain words.\n\nMore words."
    assert for_stakeholders("a <!-- a note --> b") == "a  b"


def test_the_methods_text_is_plain_words():
    # The page renders docs/methods.md: module and file names, benchmark commands, Python calls
    # and formulas belong to the passages for developers, which the page leaves out.
    doc = read_methods()
    problems = {s.title: not_plain(s.body) for s in doc.sections} | {"intro": not_plain(doc.intro)}
    assert not {k: v for k, v in problems.items() if v}
    assert not not_plain(quantities.GLOSSARY_INTRO + quantities.glossary_entries_markdown())


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
    assert not_plain(shown) == []  # what the browser shows: plain words, no code names or formulas


def test_a_link_opens_its_section_first():
    at = new_app(timeout=60)
    at.run()
    at.query_params["section"] = "anchor-selection"
    at.switch_page("pages/methods.py").run()
    assert not at.exception
    assert at.subheader[0].value == "Anchor selection"
