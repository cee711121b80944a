"""Verdict Lab: the entry point. ``streamlit run app.py`` opens the demo data on the Data page."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

HERE = Path(__file__).resolve().parent

st.set_page_config(page_title="Verdict Lab", page_icon="⚖️", layout="wide")

#: (file, title, icon): the pages, in the order of the sidebar. Missing files are skipped.
PAGES: tuple[tuple[str, str, str], ...] = (
    ("pages/data.py", "Data", "📂"),
    ("pages/overview.py", "Overview", "🧭"),
    ("pages/leaderboard.py", "Leaderboard", "🏆"),
    ("pages/anchors.py", "Anchors", "⚓"),
    ("pages/judge.py", "Judge", "🧑‍⚖️"),
    ("pages/ties.py", "Tie structure", "🟰"),
    ("pages/power.py", "Power", "📏"),
    ("pages/calibration.py", "Calibration", "🎯"),
)

pages = [st.Page(path, title=title, icon=icon, default=(i == 0))
         for i, (path, title, icon) in enumerate(PAGES) if (HERE / path).exists()]
st.navigation(pages).run()
