"""The contract: every verdict encoding, no-verdict handling, and every error path."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalcore.schema import (
    VerdictFormatError,
    inspect_verdicts,
    normalise_label,
    parse_verdicts,
    validate_verdicts,
)


def _parse(values):
    return parse_verdicts(pd.Series(values, dtype=object), column="verdict", file="f.csv").tolist()


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        (["A>>B", "A>B", "A=B", "B>A", "B>>A"], [2, 1, 0, -1, -2]),  # Arena-Hard
        (["[[A>>B]]", " [[b>a]] ", "a=b"], [2, -1, 0]),  # brackets, spaces, case
        (["[[A]]", "[[B]]", "[[C]]", "tie", "A", "b", "C"], [1, -1, 0, 0, 1, -1, 0]),  # MT-Bench
        (["model_a", "model_b", "tie", "tie (bothbad)", "Tie (BothBad)"], [1, -1, 0, 0, 0]),  # Arena
        (["2", "+1", "0", "-1", "-2", "1.0", " -2 "], [2, 1, 0, -1, -2, 1, -2]),  # numbers as text
    ],
)
def test_every_encoding_maps_to_the_scale(labels, expected):
    assert _parse(labels) == expected


def test_numeric_column_is_accepted_as_is():
    out = parse_verdicts(pd.Series([2, 1, 0, -1, -2, np.nan]), column="verdict", file="f")
    assert out.tolist()[:5] == [2, 1, 0, -1, -2]
    assert out.isna().tolist() == [False] * 5 + [True]


@pytest.mark.parametrize("token", ["", "NA", "na", "error", "unparseable", "ERROR", " ", "null"])
def test_no_verdict_tokens_are_kept_missing_not_imputed(token):
    out = parse_verdicts(pd.Series(["A>B", token], dtype=object), column="verdict", file="f")
    assert out.iloc[0] == 1 and pd.isna(out.iloc[1])


def test_normalise_label_strips_double_brackets_only():
    assert normalise_label(" [[A>B]] ") == "a>b"
    assert normalise_label("[A]") == "[a]"


def test_one_bad_label_among_many_good_rows_names_the_row_and_value():
    values = ["A>B"] * 10_000
    values[4_321] = "A>>>B"
    with pytest.raises(VerdictFormatError) as info:
        _parse(values)
    err = info.value
    assert err.rows == (4_322,)
    assert err.values == ("A>>>B",)
    assert err.file == "f.csv"
    text = str(err)
    assert "row 4322" in text and "'A>>>B'" in text and "A>>B" in text  # says what is allowed


@pytest.mark.parametrize("bad", ["3", "-3", "1.5", "win", "AB"])
def test_out_of_scale_values_are_errors(bad):
    with pytest.raises(VerdictFormatError):
        _parse(["A>B", bad])


def test_many_bad_rows_are_listed_compactly():
    with pytest.raises(VerdictFormatError) as info:
        _parse(["x"] * 12)
    assert len(info.value.rows) == 12
    assert "and 7 more" in str(info.value)


def _frame(**overrides):
    base = {
        "instruction_id": ["1", "2"],
        "model_a": ["m1", "m2"],
        "model_b": ["m2", "m1"],
        "verdict": ["A>B", "B>A"],
    }
    base.update(overrides)
    return pd.DataFrame(base)


def test_validate_fills_defaults_and_numbers_rows():
    out = validate_verdicts(_frame(), file="f")
    assert out["row"].tolist() == [1, 2]
    assert out["judge"].tolist() == ["judge", "judge"]
    assert out["verdict"].tolist() == [1, -1]
    assert out["human"].isna().all() and out["length_a"].isna().all()


def test_validate_header_case_and_spaces_are_forgiven():
    frame = _frame().rename(columns={"verdict": " Verdict ", "model_a": "MODEL_A"})
    assert validate_verdicts(frame, file="f")["verdict"].tolist() == [1, -1]


def test_missing_column_names_what_was_found():
    frame = _frame().rename(columns={"verdict": "winner"})
    with pytest.raises(VerdictFormatError) as info:
        validate_verdicts(frame, file="mine.csv")
    assert "verdict" in info.value.problem and "winner" in info.value.values
    assert str(info.value).startswith("mine.csv:")


def test_empty_and_header_only_tables_are_errors():
    with pytest.raises(VerdictFormatError, match="empty"):
        validate_verdicts(pd.DataFrame(), file="f")
    with pytest.raises(VerdictFormatError, match="no rows"):
        validate_verdicts(_frame().iloc[:0], file="f")


def test_empty_model_name_is_an_error_with_rows():
    with pytest.raises(VerdictFormatError) as info:
        validate_verdicts(_frame(model_b=["m2", " "]), file="f")
    assert info.value.rows == (2,)


def test_human_and_length_columns_are_validated():
    out = validate_verdicts(_frame(human=["[[A]]", ""], length_a=["10", "20"], length_b=["", "5"]), file="f")
    assert out["human"].iloc[0] == 1 and pd.isna(out["human"].iloc[1])
    assert out["length_a"].tolist() == [10.0, 20.0]
    with pytest.raises(VerdictFormatError, match="length_a"):
        validate_verdicts(_frame(length_a=["10", "long"]), file="f")
    with pytest.raises(VerdictFormatError, match="human"):
        validate_verdicts(_frame(human=["A>B", "maybe"]), file="f")


def test_inspect_counts_no_verdict_self_pairs_and_exact_duplicates():
    frame = pd.DataFrame(
        {
            "instruction_id": ["1", "1", "2", "2"],
            "model_a": ["a", "a", "b", "c"],
            "model_b": ["b", "b", "b", "a"],
            "verdict": ["1", "1", "0", ""],
        }
    )
    report = inspect_verdicts(validate_verdicts(frame, file="f"))
    assert report.no_verdict_rows == 1
    assert report.self_comparison_rows == 1
    assert report.duplicate_rows == (2,)
    assert len(report.notes) == 3


@pytest.mark.parametrize(
    "header", [["verdict", "verdict"], ["verdict", "verdict.1"], ["verdict", " Verdict"]]
)
def test_a_column_named_twice_is_refused(header):
    frame = pd.DataFrame(
        [["1", "a", "b", "1", "-1"]], columns=["instruction_id", "model_a", "model_b", *header]
    )
    with pytest.raises(VerdictFormatError, match="more than once.*verdict"):
        validate_verdicts(frame, file="twice.csv")
