"""A wide table keeps its first column in place while the rest scroll (ui.readable.count_columns),
and counts keep their thousands separator."""

from __future__ import annotations

import pandas as pd

from ui.readable import READABLE_CSS, count_columns


def test_a_wide_table_pins_its_first_column_and_formats_counts():
    wide = pd.DataFrame({"Model": ["a"], "Battles": [11354], "Rank": [1], "Win rate": [0.85], "Ties": [218]})
    config = count_columns(wide)
    assert config["Model"]["pinned"] is True
    assert config["Battles"]["type_config"]["format"] == "localized"
    assert "Rank" not in config  # a small ordinal stays plain
    narrow = pd.DataFrame({"Model": ["a"], "Battles": [11354]})
    assert "Model" not in count_columns(narrow)  # a narrow table fits: nothing pinned


def test_the_page_style_never_hides_a_table_scroll_bar():
    assert "scrollbar-width: auto !important" in READABLE_CSS
