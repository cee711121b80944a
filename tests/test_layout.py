"""The code's shape stays as the developers' guide asks: modules by concept, pages as storyboards.

No evalcore module is much over 500 lines unless its docstring says why it stays one module
("Why this module is longer than 500 lines: …"), and no page is much over 150 lines (a page is
load → one evalcore call per section → draw; logic belongs in evalcore or ``ui/``).
"""

from __future__ import annotations

import ast
import re

import pytest

from tests.conftest import ROOT

#: "about 500" and "about 150": a few lines of slack so a docstring edit does not trip the test.
MODULE_LINES = 520
PAGE_LINES = 155
REASON = re.compile(r"Why (this|one) module\b[^.]*\blines\b")


def _lines(path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def _modules():
    return sorted(p for p in (ROOT / "evalcore").rglob("*.py") if "__pycache__" not in p.parts)


def test_the_reason_pattern_matches_the_phrasings_in_use():
    assert REASON.search("Why this module is longer than 500 lines: it is the one façade")
    assert REASON.search("Why one module of about 550 lines: one short function per section")
    assert not REASON.search("This module is long. It has many lines.")


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_long_modules_say_why(path):
    name = path.relative_to(ROOT).as_posix()
    if _lines(path) <= MODULE_LINES:
        return
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    assert REASON.search(doc), (
        f"{name} has {_lines(path)} lines: split it by concept, or say at the top of its docstring "
        "why it stays one module ('Why this module is longer than 500 lines: …')."
    )


@pytest.mark.parametrize(
    "path", [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))], ids=lambda p: p.name
)
def test_pages_are_storyboards(path):
    assert _lines(path) <= PAGE_LINES, (
        f"{path.name} has {_lines(path)} lines: move logic into an evalcore presentation module or ui/."
    )
