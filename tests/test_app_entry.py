"""app.py as the server's entry: imported, it declares the Streamlit App whose start-up hook begins
the demo's work (issue 26); run as a page script, it is the Data page (the page tests)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_streamlit_run_finds_the_app_and_its_start_up_hook():
    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(ROOT / "app.py")
    assert found.is_asgi_app and found.import_string == "app:app"


def test_importing_the_entry_declares_the_app_and_loads_nothing_heavy():
    """The server imports app.py before it answers anything: no page is drawn, and the libraries
    are loaded later, by the start-up hook's thread (so health checks answer meanwhile)."""
    code = (
        "import sys, app, streamlit as st; "
        "print(isinstance(app.app, st.App), 'ui' in sys.modules, 'pandas' in sys.modules, app.PRELOAD)"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    declared, ui_loaded, pandas_loaded, preload = out.stdout.strip().split(" ", 3)
    assert (declared, ui_loaded, pandas_loaded) == ("True", "False", "False")
    assert "'ui'" in preload


def test_what_the_start_up_hook_loads_exists():
    import importlib.util

    code = "import app; print(' '.join(app.PRELOAD))"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert out.stdout.split(), out.stderr
    for name in out.stdout.split():
        assert importlib.util.find_spec(name) is not None, name
