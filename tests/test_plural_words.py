"""A count of one reads in the singular wherever a sentence names a count ("1 instruction", not
"1 instructions"): the one helper, ``fmt_count``, and the sentences that use it."""

from __future__ import annotations

import ast
import re

import pytest

from evalcore.judge.both_orders import BothOrdersSummary
from evalcore.present.judge import both_orders_sentence
from evalcore.schema import ValidationReport, VerdictFormatError
from evalcore.store.store import VerdictStore
from evalcore.text import fmt_count
from tests.conftest import ROOT


def test_fmt_count_is_singular_for_one_only():
    assert fmt_count(1, "instruction") == "1 instruction"
    assert fmt_count(0, "instruction") == "0 instructions"
    assert fmt_count(2_000, "model") == "2,000 models"
    assert fmt_count(1.0, "call") == "1 call"
    assert fmt_count(1, "category", "categories") == "1 category"
    assert fmt_count(3, "category", "categories") == "3 categories"
    assert fmt_count(float("nan"), "judge") == "— judges"


def test_one_call_judged_in_one_order_reads_in_the_singular():
    text = both_orders_sentence(BothOrdersSummary(calls=5, pairings=2, unpaired_calls=1))
    assert "1 call was judged in one order only and has none" in text
    text = both_orders_sentence(BothOrdersSummary(calls=6, pairings=2, unpaired_calls=2))
    assert "2 calls were judged in one order only and have none" in text


def test_one_labelled_pair_reads_in_the_singular():
    from evalcore.calibration.ppi import _check_design
    from evalcore.errors import DesignError

    try:
        _check_design({"labelled_pairs": 1, "labelled_instructions": 1}, 2, ("a", "b"), 30)
    except DesignError as exc:
        assert "only 1 labelled pair on 1 instruction carries both" in str(exc)
    else:
        raise AssertionError("one labelled pair is refused")


# -- no "(s)" in a message ------------------------------------------------------------------------

#: "3 row(s)", "column(s) missing": a letter followed by "(s)".
_HEDGED_PLURAL = re.compile(r"[A-Za-z]\(s\)")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are a module's, class's or function's docstring."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def hedged_plurals(source: str) -> list[tuple[int, str]]:
    """(line, text) of each string literal of ``source`` that writes "(s)" after a letter.

    Docstrings are left out (they are read by developers, not shown). An f-string's literal parts
    are read, never its expressions, so ``f"{len(s)}"`` is not a hit (Python 3.11's tokenizer
    gives an f-string as one token, expressions included; the syntax tree separates them).
    """
    tree = ast.parse(source)
    skip = _docstrings(tree)
    return sorted(
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skip
        and _HEDGED_PLURAL.search(node.value)
    )


def test_the_scan_finds_a_hedged_plural_in_messages_and_not_in_docstrings_or_expressions():
    source = (
        '"""Module: 2 row(s)."""\n'
        "def f(s, n):\n"
        '    """Count(s)."""\n'
        '    a = f"{len(s)} rows"\n'
        '    b = f"{n} row(s) left out"\n'
        '    c = "required column(s) " "missing"\n'
        '    return "(s) alone", a, b, c\n'
    )
    assert hedged_plurals(source) == [(5, " row(s) left out"), (6, "required column(s) missing")]


def test_no_message_writes_a_hedged_plural():
    files = [ROOT / "app.py"] + [
        p for d in ("evalcore", "ui", "pages") for p in sorted((ROOT / d).rglob("*.py"))
    ]
    found = [
        f"{path.relative_to(ROOT).as_posix()}:{line}: {text.strip()[:80]}"
        for path in files
        for line, text in hedged_plurals(path.read_text(encoding="utf-8"))
    ]
    assert len(files) > 100
    assert not found, "write the count with evalcore.text.fmt_count instead of '(s)':\n" + "\n".join(found)


# -- hand-picked messages, in the singular and the plural ------------------------------------------


def _load_error(text: str) -> str:
    with pytest.raises(VerdictFormatError) as err:
        VerdictStore().load_bytes(text.encode(), name="verdicts.csv")
    return str(err.value)


@pytest.mark.parametrize(
    ("rows", "words"),
    [
        ("q1,a,b,1\nq2,a,b,7\n", "column 'verdict' has 1 value outside the verdict scale"),
        ("q1,a,b,7\nq2,a,b,9\n", "column 'verdict' has 2 values outside the verdict scale"),
    ],
)
def test_values_outside_the_verdict_scale_are_counted_in_words(rows, words):
    assert words in _load_error("instruction_id,model_a,model_b,verdict\n" + rows)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("instruction_id,model_a,model_b\nq1,a,b\n", "required column missing: verdict"),
        ("instruction_id,model_a\nq1,a\n", "required columns missing: model_b, verdict"),
    ],
)
def test_missing_columns_are_named_in_the_singular_or_the_plural(text, words):
    message = _load_error(text)
    assert words in message and "column(s)" not in message


def test_a_repeated_row_and_a_self_comparison_read_with_the_verb_that_fits():
    one = ValidationReport(rows=5, no_verdict_rows=1, self_comparison_rows=1, duplicate_rows=(4,)).notes
    assert one[0].startswith("1 call returned no verdict")
    assert one[1].startswith("1 row compares a model with itself")
    assert one[2] == (
        "1 row repeats an earlier row exactly (row 4): kept as a separate call; delete it from the "
        "file if it was written twice by mistake."
    )
    two = ValidationReport(rows=9, no_verdict_rows=2, self_comparison_rows=2, duplicate_rows=(4, 7)).notes
    assert two[0].startswith("2 calls returned no verdict")
    assert two[1].startswith("2 rows compare a model with itself")
    assert two[2] == (
        "2 rows repeat an earlier row exactly (rows 4, 7): kept as separate calls; delete them from "
        "the file if they were written twice by mistake."
    )
