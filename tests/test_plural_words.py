"""A count of one reads in the singular wherever a sentence names a count ("1 instruction", not
"1 instructions"): the one helper, ``fmt_count``, and the sentences that use it."""

from __future__ import annotations

from evalcore.judge.both_orders import BothOrdersSummary
from evalcore.present.judge import both_orders_sentence
from evalcore.text import fmt_count


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
