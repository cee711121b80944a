"""Display text in words: the strings evalcore, the pages and ui print (sentences, notes, tables,
figures, the catalogue's definitions) carry no mathematical symbols or abbreviations a
stakeholder has to decode.

Every string literal (docstrings aside) is read: no Greek letter (alpha, kappa, tau are spelled
out), no "R²", "SD", "Se"/"Sp", "≈", "≥", "≤", "∞", "÷", "½", "(wins + ties/2)" or a difference written
as a formula ("slot A − slot B"; a negative number such as "−3" is fine), a one-letter
variable ("N = 2,000") or a half-open interval ("edge in [5%, 6%)").
Two signs stay, on purpose: "·" as a separator between items of a line ("Judge x · 300
instructions"), and "±" in a half-width ("±4.0 pp"), the one way the floor tables of the
literature write it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.conftest import ROOT

#: Where display text is written: the library's sentences and notes as well as the faces.
FACES = ("evalcore", "pages", "ui")
SYMBOLS = re.compile(
    r"[\u0370-\u03ff≈≥≤∞²√÷½]|\bSD\b|\bSe\b|\bSp\b|ties/2|\bI = "
    # a difference written as a formula ("slot A − slot B", "M − 1"), not a negative number ("−3")
    r"|[A-Za-z)] ?− ?[A-Za-z(]|[A-Za-z)] − \d"
    # a one-letter variable ("N = 2,000", "J = 0.57": Youden's J is a name) or a half-open interval
    r"|(?<!Youden's )\b[A-Z] = |\bin \[\S+, \S+\)"
)
#: Modules whose strings are data, not display text: the Unicode case-folding table of the search.
DATA_MODULES = frozenset({"evalcore/store/verdicts.py"})
#: Strings that are not display text: a pattern that reads numbers back.
NOT_DISPLAY = re.compile(r"^\^\(\?:")


def display_strings(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string literal that is not a docstring."""
    tree = ast.parse(source)
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
    ]


def symbols(source: str) -> list[tuple[int, str]]:
    return [
        (line, text[:80])
        for line, text in display_strings(source)
        if SYMBOLS.search(text) and not NOT_DISPLAY.match(text)
    ]


def test_the_faces_print_words_not_symbols():
    found = {}
    for face in FACES:
        for path in sorted((ROOT / face).rglob("*.py")):
            name = Path(path).relative_to(ROOT).as_posix()
            hits = [] if name in DATA_MODULES else symbols(path.read_text(encoding="utf-8"))
            if hits:
                found[name] = hits
    assert not found


def test_a_planted_symbol_is_found_and_a_docstring_is_not():
    source = '"""The gate at α / 19."""\nx = f"two-sided at α / {n}"\ny = "R² = 0.5"\nz = "Pilot SD"\nw = "Judge · 300"\n'
    source += 'v = "slot A − slot B wins"\nu = "moved −3 places"\nt = "(M − 1) calls"\n'
    assert sorted(line for line, _ in symbols(source)) == [2, 3, 4, 6, 8]
