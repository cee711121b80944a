"""The shared widgets written once (ui.widgets, ui.messages): several notes in one call, a switch
and a whole number kept in the link."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

pytestmark = pytest.mark.app


def test_several_notes_are_one_call_each_in_its_own_box():
    def script():
        import ui

        ui.info("first *note*", "second note")
        ui.caption("a caption")
        ui.warning()  # no notes: nothing drawn

    at = AppTest.from_function(script, default_timeout=30).run()
    assert not at.exception
    assert [box.value for box in at.info] == ["first \\*note\\*", "second note"]  # user text escaped
    assert [c.value for c in at.caption] == ["a caption"]
    assert not at.warning


def test_a_linked_checkbox_starts_on_the_link_and_leaves_it_at_its_default():
    def script():
        import streamlit as st

        import ui

        on = ui.linked_flag(st.checkbox, "Full ranking", param="full", key="full", default=True)
        st.write(f"on={on}")

    at = AppTest.from_function(script, default_timeout=30)
    at.query_params["full"] = "0"
    at.run()
    assert at.checkbox(key="full").value is False
    assert at.query_params["full"] == "0"
    at.checkbox(key="full").check().run()
    assert "full" not in at.query_params  # the default is not written into the link


def test_a_linked_number_names_a_value_that_is_not_whole_and_starts_on_its_default():
    def script():
        import streamlit as st

        import ui

        value = ui.linked_number(st, "Rounds", 0, 10, 5, "rounds", "rounds_input")
        st.write(f"value={value}")

    at = AppTest.from_function(script, default_timeout=30)
    at.query_params["rounds"] = "x"
    at.run()
    assert at.number_input(key="rounds_input").value == 5
    assert any("is not a whole number" in w.value for w in at.warning)
    at.number_input(key="rounds_input").set_value(7).run()
    assert at.query_params["rounds"] == "7"


def test_a_large_csv_is_written_on_the_click_and_holds_the_same_bytes(monkeypatch):
    """A download of many rows is handed to Streamlit as a function run on the click (the page
    does not write 1.8 million rows at every visit); its bytes are the ones written at once."""
    import pandas as pd
    import streamlit as st

    from ui import widgets

    given = []
    monkeypatch.setattr(st, "download_button", lambda label, data, **kw: given.append(data))
    big = pd.DataFrame({"model": ["=a", "b"] * (widgets.DEFERRED_CSV_ROWS // 2), "n": 1})
    small = big.head(3)
    widgets.download_csv(big, "big.csv")
    widgets.download_csv(small, "small.csv")
    deferred, eager = given
    assert callable(deferred) and deferred() == widgets.safe_csv(big)
    assert eager == widgets.safe_csv(small) and eager.startswith(b"model,n\n'=a,1")


def test_a_section_runs_as_a_fragment_and_says_its_error_in_words():
    """A section (ui.widgets.section) is drawn as Streamlit's fragment, so that its own widgets
    rerun it alone; an error in it is an error box in words, and the rest of the page is drawn."""

    def script():
        import streamlit as st
        from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState

        import ui.widgets as w

        @w.section
        def part():
            st.session_state["fragment"] = ThreadState.get().fragment_id
            if st.toggle("Fail", key="fail"):
                raise ValueError("a problem")

        part()
        st.write("after the section")

    at = AppTest.from_function(script, default_timeout=30).run()
    assert at.session_state["fragment"]  # None outside a fragment
    at.toggle(key="fail").set_value(True).run()
    assert not at.exception
    assert any("unexpected problem" in e.value and "a problem" in e.value for e in at.error)
    assert [m.value for m in at.markdown] == ["after the section"]
