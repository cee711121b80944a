"""Methods: what each analysis computes and the published references, read from the bundled
docs/methods.md at run time (the same text as the documentation; nothing is fetched)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import ui as _ui
from evalcore.methods_doc import read_methods

with _ui.page("Methods"):
    st.title("Methods and references")
    doc = read_methods()  # a small file, read on every run: an edit shows at once
    st.markdown(doc.intro)
    wanted = doc.section(_ui.url_param("section", "") or "")
    if wanted is not None:  # a page's "Method" link: its section first
        with st.container(border=True):
            st.subheader(wanted.title, anchor=False)
            st.markdown(wanted.body)
    st.markdown(" · ".join(f"[{s.title}](#{s.slug})" for s in doc.sections) + " · [References](#references)")
    for section in doc.sections:
        st.header(section.title, anchor=section.slug, divider="gray")
        st.markdown(section.body)
    st.header("References", anchor="references", divider="gray")
    refs = pd.DataFrame(
        {
            "Authors": [r.authors for r in doc.references],
            "Year": [r.year for r in doc.references],
            "Title": [r.title for r in doc.references],
            "Published in": [r.published for r in doc.references],
        }
    )
    st.dataframe(refs, hide_index=True, width="stretch", height=min(38 * len(refs) + 40, 900))
    _ui.download_csv(refs, "references.csv", key="dl_references")
