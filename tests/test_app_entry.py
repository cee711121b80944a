"""app.py as the server's entry: imported, it declares the Streamlit App whose start-up hook begins
the demo's work (issue 26); run as a page script, it is the Data page (the page tests)."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def test_streamlit_run_finds_the_app_and_its_start_up_hook():
    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(ROOT / "app.py")
    assert found.is_asgi_app and found.import_string == "app:app"


def test_importing_the_entry_declares_the_app_and_loads_nothing_heavy():
    """The server imports app.py before it answers anything: no page is drawn, and the libraries
    are loaded later, by the start-up hook's thread (so health checks answer meanwhile)."""
    code = "import sys, app, streamlit as st; print(isinstance(app.app, st.App), 'ui' in sys.modules, 'pandas' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "False", "False"]


def test_the_start_up_hook_loads_every_module_a_page_imports():
    """Once :func:`ui.warm.load_page_imports` ran, no page's own imports load anything new: a
    page's first words are drawn without waiting for a library (a page draws nothing before its
    imports)."""
    code = (
        "import ast, glob, sys, ui.warm as w\n"
        "w.load_page_imports()\n"
        "before = set(sys.modules)\n"
        "for path in ['app.py', *glob.glob('pages/*.py')]:\n"
        "    for node in ast.walk(ast.parse(open(path).read())):\n"
        "        if isinstance(node, (ast.Import, ast.ImportFrom)) and not getattr(node, 'level', 0):\n"
        "            exec(ast.unparse(node), {})\n"
        "print(sorted(set(sys.modules) - before)[:5], 'evalcore.findings' in before, 'plotly' in before)"
    )
    assert _run(code) == "[] True True"


def test_the_start_up_hook_settles_what_streamlit_does_at_the_first_page_s_first_elements():
    """What Streamlit does once per process at the first elements a page draws is done before the
    server answers: the emoji table imported, the image readers loaded, the check for an
    interactive interpreter settled. Each, left to the first page, cost a fresh server's first
    visitor 0.05–0.2 s."""
    code = (
        "import sys, ui.warm as w, streamlit.delta_generator as dg\n"
        "from PIL import Image\n"
        "before = ('streamlit.emojis' in sys.modules, Image._initialized, dg._use_warning_has_been_displayed)\n"
        "w.load_page_imports()\n"
        "after = ('streamlit.emojis' in sys.modules, Image._initialized, dg._use_warning_has_been_displayed)\n"
        "print(before, after)"
    )
    assert _run(code) == "(False, 0, False) (True, 1, True)"


def _run(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VERDICTLAB_WARM": "0"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_the_server_answers_once_every_page_import_is_loaded_and_the_demo_read():
    """The start-up hook holds the server's first answer until ``ui`` (the pages' glue, pandas,
    DuckDB) and every module a page imports (SciPy, Plotly, the analyses) are loaded and the
    start-up read of the demo is over, so that a visitor's first page never waits for them on a
    blank screen."""
    code = (
        "import asyncio, sys, app\n"
        "import ui.warm as w\n"
        "seen = []\n"
        "w.wait_read = lambda timeout: seen.append('read') or True\n"
        "async def main():\n"
        "    async with app._lifespan(None):\n"
        "        seen.append(all(m in sys.modules for m in ('ui', 'pandas', 'evalcore.findings', 'plotly')))\n"
        "asyncio.run(main())\n"
        "print(seen)"
    )
    assert _run(code) == "['read', True]"


def test_every_html_page_says_what_happens_before_streamlit_draws_it():
    """The App's wrapper adds the opening sentence to an HTML page it serves whole (its length
    told anew), and leaves any other answer (a script, a 304, a websocket) as it is."""
    import asyncio

    from ui.opening import OPENING, with_opening_words

    page = b'<html><body><div id="root"></div></body></html>'

    def answer(status: int, kind: bytes, body: bytes):
        async def served(scope, receive, send):
            assert b"accept-encoding" not in dict(scope["headers"]) or scope["method"] != "GET"  # sent plain
            headers = [(b"content-type", kind), (b"content-length", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body[:10], "more_body": True})
            await send({"type": "http.response.body", "body": body[10:]})

        return served

    def serve(app, method: str = "GET", kind: str = "http") -> list[dict]:
        sent: list[dict] = []

        async def send(message):
            sent.append(message)

        scope = {
            "type": kind,
            "method": method,
            "headers": [(b"accept", b"text/html,*/*"), (b"accept-encoding", b"gzip")],
        }
        # in a thread of its own: a browser test in the same worker may run an event loop here
        with ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, with_opening_words(app, scope, None, send)).result()
        return sent

    sent = serve(answer(200, b"text/html; charset=utf-8", page))
    body = b"".join(m.get("body", b"") for m in sent)
    assert OPENING.encode() in body and body.index(OPENING.encode()) < body.index(b'id="root"')
    assert dict(sent[0]["headers"])[b"content-length"] == str(len(body)).encode()
    for status, kind, method in [
        (200, b"text/javascript", "GET"),
        (304, b"text/html", "GET"),
        (200, b"text/html", "HEAD"),
    ]:
        sent = serve(answer(status, kind, page), method)
        assert b"".join(m.get("body", b"") for m in sent) == page
        assert dict(sent[0]["headers"])[b"content-length"] == str(len(page)).encode()


def test_the_pages_glue_the_data_page_and_reading_a_file_load_no_scipy():
    """What is loaded before the server answers (``ui``, the store's reading) and what the Data
    page imports leave SciPy to the analyses that use it (it costs about a second of CPU)."""
    code = (
        "import sys, ui, evalcore.store.store\n"
        "from evalcore.ties.both_bad import both_bad_share\n"
        "from evalcore.plots.summary import coverage_heatmap\n"
        "from evalcore.ingest.files import read_human_ranking\n"
        "print(sorted(m for m in sys.modules if m == 'scipy' or m.startswith('scipy.'))[:3])"
    )
    assert _run(code) == "[]"


def test_the_ties_package_names_are_those_of_its_modules():
    """The ties package imports its names on first use: each is the one its module defines."""
    import importlib

    import evalcore.ties as ties

    for name in ties.__all__:
        module = importlib.import_module(ties._EXPORTS[name])
        assert getattr(ties, name) is getattr(module, name), name
    assert set(ties.__all__) == set(ties._EXPORTS)


def test_the_judge_and_leaderboard_pages_import_no_scipy_statistics():
    """SciPy's statistics (about a second of CPU, two with SciPy's optimisers behind them) are
    imported by the analyses that use them, on first use: the Judge and Leaderboard pages' own
    imports (the modules their first draw runs) leave them out."""
    for page in ("judge", "leaderboard"):
        code = (
            "import ast, sys\n"
            f"tree = ast.parse(open('pages/{page}.py').read())\n"
            "for node in tree.body:\n"
            "    if isinstance(node, (ast.Import, ast.ImportFrom)):\n"
            "        exec(ast.unparse(node))\n"
            "print(sorted(m for m in sys.modules if m.startswith(('scipy.stats', 'scipy.optimize')))[:3])"
        )
        assert _run(code) == "[]", page


def test_the_chi_squared_tail_is_scipys():
    """The heterogeneity test's chi-squared tail, taken from SciPy's special function so that no
    page imports SciPy's statistics for it, gives SciPy's ``chi2.sf`` exactly."""
    from scipy import stats

    from evalcore.ranking.category_permutation import _chi2_p, _chi2_sf

    rng = np.random.default_rng(7)
    for x, df in zip(rng.exponential(12.0, 500), rng.uniform(0.2, 60.0, 500), strict=True):
        assert _chi2_sf(x, df) == float(stats.chi2.sf(x, df))
    assert _chi2_p(3.84, 1) == float(stats.chi2.sf(3.84, 1)) and _chi2_p(5.0, 0) == 1.0


def test_the_start_up_work_waits_for_the_pages_glue_before_it_imports_its_state():
    """The demo's start-up work (a thread) imports ``ui.state`` only once the server's start-up
    thread has imported the ``ui`` package: importing it halfway through the package's import
    failed one of the two threads as a circular import. Here the package's import is held for a
    second halfway (at ``ui.datasets``) while the start-up work asks for ``ui.state``."""
    code = (
        "import importlib, importlib.abc, sys, threading, time\n"
        "order = []\n"
        "class Hold(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'ui.datasets' and threading.current_thread() is threading.main_thread():\n"
        "            from ui import warm\n"
        "            worker = threading.Thread(target=lambda: order.append(('work', warm._ui_state())))\n"
        "            worker.start()\n"
        "            threads.append(worker)\n"
        "            time.sleep(1.0)\n"
        "        return None\n"
        "threads = []\n"
        "sys.meta_path.insert(0, Hold())\n"
        "import ui\n"
        "order.append(('package', None))\n"
        "threads[0].join(60)\n"
        "print([step for step, _ in order], order[-1][1] is sys.modules['ui.state'])"
    )
    assert _run(code) == "['package', 'work'] True"


def test_the_served_app_watches_no_source_files():
    """The README's `streamlit run app.py` takes the project's configuration: no file watcher.
    With one, every new session walked all 1,870 loaded modules on its first run (and loaded
    numpy's tools left to load on first use): `bench_pages --no-cold --pages judge ties`, two
    alternated pairs, the server's CPU over a first visit in a new tab 1.4-2.1 s against 0.5-0.7
    without. Read through Streamlit's own configuration, so a misspelt key fails here."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")}
    code = (
        "import streamlit.config as c\n"
        "c.get_config_options(force_reparse=True)\n"
        "print(c.get_option('server.fileWatcherType'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert out.stdout.split()[-1] == "none", out.stderr[-2000:]
