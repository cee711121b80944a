"""Methods: what each analysis computes and the published references, read from the bundled
docs/methods.md at run time (the same text as the documentation; nothing is fetched)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import ui as _ui
from evalcore import quantities
from evalcore.present.methods import read_methods

with _ui.page("Methods"):
    st.title("Methods and references")
    doc = read_methods()  # a small file, read on every run: an edit shows at once
    st.markdown(doc.intro)
    wanted = doc.section(_ui.url_param("section", "") or "")
    if wanted is not None:  # a page's "Method" link: its section first
        with st.container(border=True):
            st.subheader(wanted.title, anchor=False)
            st.markdown(wanted.body)
    for section in doc.sections:
        st.header(section.title, anchor=section.slug, divider="gray")
        st.markdown(section.body)
    st.header("Glossary of reported quantities", anchor="glossary", divider="gray")
    st.markdown(quantities.GLOSSARY_INTRO)
    st.markdown(quantities.glossary_entries_markdown())
    st.header("References", anchor="references", divider="gray")
    # a list, not a table: long author lists and titles wrap instead of being cut in a cell
    st.markdown("\n".join(f"- {r.authors} ({r.year}). **{r.title}**. {r.published}" for r in doc.references))
    refs = pd.DataFrame([r.as_dict() for r in doc.references]).rename(
        columns={"authors": "Authors", "year": "Year", "title": "Title", "published": "Published in"}
    )
    _ui.download_csv(refs, "references.csv", label="Download the references (CSV)", key="dl_references")
