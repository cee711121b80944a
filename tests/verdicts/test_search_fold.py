"""The Verdicts search matches under Unicode full case folding, as Python's ``casefold`` does
(issue 30, item 8): ``İ`` is not ``i``, ``ß`` is ``ss``, final ``ς`` is ``σ``."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore.store.store import VerdictStore
from evalcore.store.verdicts import FOLDED, casefold_match
from evalcore.verdicts import VerdictFilter

#: Characters whose folding is not one-to-one or not what lower() gives, their neighbours, and
#: the LIKE pattern characters.
ALPHABET = FOLDED[:40] + "İıIiSsßẞΣσςKkKﬁfiFΐǰJjĳ\u0307\u0301%_\\ ab"


@pytest.fixture(scope="module")
def con():
    con = duckdb.connect()
    yield con
    con.close()


def _sql_finds(con, text: str, needle: str) -> bool:
    condition, params = casefold_match(("t",), needle)
    return con.execute(f"SELECT {condition} FROM (SELECT $text AS t)", {**params, "text": text}).fetchone()[0]


@settings(max_examples=150, deadline=None)  # about 4 s; each example is a DuckDB query
@given(st.text(alphabet=ALPHABET, max_size=12), st.text(alphabet=ALPHABET, min_size=1, max_size=4))
def test_the_search_matches_as_python_casefold_does(con, text, needle):
    assert _sql_finds(con, text, needle) == (needle.casefold() in text.casefold()), (text, needle)


def test_the_search_folds_what_users_mean():
    frame = pd.DataFrame(
        {
            "instruction_id": ["q1", "q2", "q3", "q4", "q5"],
            "model_a": "x",
            "model_b": "y",
            "verdict": 1,
            "prompt": ["İstanbul", "istanbul", "Die Straße", "λόγος", "ﬁle"],
            "response_a": "a",
            "response_b": "b",
            "judge_output": "c",
        }
    )
    store = VerdictStore()
    store.load_bytes(frame.to_csv(index=False).encode(), name="t.csv")

    def found(needle: str) -> list[str]:
        return [c.instruction for c in store.verdicts(VerdictFilter(search=needle)).cases]

    assert found("İ") == ["q1"]  # a dotted capital I is not every i (ILIKE matched q1 and q2)
    assert found("i̇stanbul") == ["q1"]
    assert found("ISTANBUL") == ["q2"]  # İ folds to i + a combining dot, so "is" is not in it
    assert found("strasse") == ["q3"] and found("STRAẞE") == ["q3"]
    assert found("ΛΌΓΟΣ") == ["q4"]  # the final sigma folds to σ
    assert found("FILE") == ["q5"]  # the ligature folds to "fi"
    store.close()


@pytest.mark.slow
def test_the_folded_characters_are_every_one_lower_gets_wrong():
    """Recompute FOLDED over every code point: the characters whose case folding, lowercased by
    DuckDB, is not DuckDB's lowercase of the character (a new DuckDB or Python may change it)."""
    con = duckdb.connect()
    rows = con.execute(
        "SELECT i, lower(chr(i::INTEGER)) FROM range(0, 1114112) t(i) WHERE i < 55296 OR i >= 57344"
    ).fetchall()
    lower = {chr(i): low for i, low in rows}
    wrong = [c for c, low in lower.items() if "".join(lower[x] for x in c.casefold()) != low]
    assert "".join(wrong) == FOLDED
    # lower() never merges two characters that folding keeps apart, so matching lowercased
    # foldings is matching foldings
    outputs = {x for c in lower for x in c.casefold()}
    assert len({lower[x] for x in outputs}) == len(outputs)
    con.close()
