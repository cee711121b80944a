"""The Tie-structure page's pointwise score table, loaded the way the Data page loads verdicts:
an upload or the bundled demo is read once into the session, a file that cannot be read is kept
as words in the session (the table loaded before stays), and the upload's bytes are dropped once
read. The bundled demo goes with the bundled verdict demo only: under an uploaded dataset the page
never shows made-up pointwise scores unless the user asks for them."""

from __future__ import annotations

from typing import Any, Callable

import streamlit as st

from evalcore.ingest.pointwise import PointwiseTable, read_pointwise
from evalcore.present import ties as show
from evalcore.schema import VerdictFormatError
from ui.messages import error, md
from ui.state import DATA, forget_upload, state

POINTWISE_DEMO = DATA / "demo_pointwise.csv"


def _install(table: PointwiseTable | None, *, demo: bool) -> None:
    s = state()
    kept = {k: v for k, v in (s.get("pointwise") or {}).items() if k == "upload_id"}
    s["pointwise"] = {**kept, "table": table, "demo": demo, "version": s.get("version"), "error": None}


def _read(name: str, load: Callable[[], PointwiseTable], *, upload: Any = None) -> None:
    """Read a pointwise table into the session; a refusal is kept in words (the table before stays)."""
    try:
        with st.spinner(f"Reading {md(name)}…"):
            _install(load(), demo=False)
    except VerdictFormatError as exc:
        state()["pointwise"]["error"] = str(exc)
    finally:
        if upload is not None:
            forget_upload(upload)


def pointwise_table() -> tuple[PointwiseTable | None, bool]:
    """The session's pointwise table (None when there is none) and whether it is the bundled
    demo, after the uploader and the demo button drawn here."""
    s = state()
    demo_data, pw = bool(s.get("demo")), s.get("pointwise") or {}
    stale = pw.get("demo") and not demo_data and pw.get("version") != s.get("version")
    if not pw or stale or (pw.get("table") is None and demo_data):
        _install(read_pointwise(POINTWISE_DEMO) if demo_data else None, demo=demo_data)
    up_col, demo_col = st.columns([3, 1])
    upload = up_col.file_uploader(show.POINTWISE_UPLOAD, type=show.POINTWISE_TYPES, key="pointwise_upload")
    if upload is not None and upload.file_id != s["pointwise"].get("upload_id"):
        s["pointwise"]["upload_id"] = upload.file_id
        data, name = upload.getvalue(), upload.name
        _read(name, lambda: read_pointwise(data, name=name), upload=upload)
    pw = s["pointwise"]
    if not pw["demo"] and demo_col.button("Use the bundled demo", key="pointwise_demo"):
        _install(read_pointwise(POINTWISE_DEMO), demo=True)
        st.rerun()
    if pw.get("error"):
        error(show.upload_problem(pw["error"], pw.get("table")), lead="**This file was not loaded.**")
    return pw.get("table"), bool(pw["demo"])
