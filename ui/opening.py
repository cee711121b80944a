"""Words on a page before Streamlit's own scripts have drawn it.

Between a link's opening and the page's first element, Streamlit's page is white: its scripts
load (about half a second of the browser's work), connect to the server, and the page's script
starts. The server's HTML page therefore carries one sentence (:data:`OPENING`) that the browser
paints at once, over the page, and a few lines of script that remove it as soon as the page has
drawn words of its own (its status line, :mod:`ui.status`, or its title) or its first run ended.
app.py's App adds it to every HTML page it serves (:func:`with_opening_words`, an ASGI wrapper).

The same script loads the browser's chart code once the page's first run has ended and the
browser is idle (:data:`CHART_CODE`): Streamlit loads Plotly's 4.7 MB script only when a page
first draws a chart, and on this 2-core machine its fetch, compile and start (about half a
second of the browser's CPU) fell inside that page's run, on the Power, Leaderboard and Judge
pages' first visits: a sidebar click from the Data page, or a new tab of a browser that had
opened only pages without charts. Loaded in idle time after the first page, it is ready (and in
the browser's cache for its next tabs) before a chart page is opened. A page that draws a chart
before then loads it as before (the same module, loaded once).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: What a page says before it has drawn anything (the browser loads the app, then the page starts).
OPENING = "Opening the page: loading Verdict Lab in your browser and asking the server for this page…"


def chart_code(static: Path | None = None) -> str | None:
    """The address (relative to a page's, as Streamlit's own scripts are) of the script Streamlit
    draws Plotly charts with, found in its build (``static/static/js/PlotlyChart.<hash>.js``):
    None when this Streamlit has no such single file (nothing is then loaded ahead)."""
    if static is None:
        import streamlit

        static = Path(streamlit.__file__).parent / "static"
    found = sorted((static / "static" / "js").glob("PlotlyChart.*.js"))
    return f"./static/js/{found[0].name}" if len(found) == 1 else None


#: The browser's chart code, loaded once the page's first run has ended, in idle time.
CHART_CODE = chart_code()
#: The sentence, painted over the page until the page draws words of its own (or after two
#: minutes, whatever happens), and the script that removes it, and then loads the chart code
#: (:data:`CHART_CODE`) when the first run has ended and the browser is idle. The script looks
#: every 50 ms; a run has begun when it was seen running or has drawn words in the main column.
HTML = (
    '<div id="vl-opening" role="status" style="position:fixed;top:4.5rem;left:0;right:0;'
    "padding:0 6rem;font-family:'Source Sans',sans-serif;font-size:1rem;color:#31333F;"
    f'z-index:1000;pointer-events:none">{OPENING}</div>'
    "<script>(() => {"
    "const gone = () => document.getElementById('vl-opening')?.remove();"
    f"const charts = {'null' if CHART_CODE is None else repr(CHART_CODE)};"
    "const idle = window.requestIdleCallback || ((f) => setTimeout(f, 300));"
    "let ran = false, shown = false;"
    "const tick = setInterval(() => {"
    "const app = document.querySelector('[data-testid=\"stApp\"]');"
    "const main = document.querySelector('[data-testid=\"stMain\"]');"
    "const state = app && app.getAttribute('data-test-script-state');"
    "const drawn = !!(main && main.innerText.trim());"
    # a run that began and ended between two looks (a fast page) is known by what it drew
    "ran = ran || drawn || state === 'running';"
    "if (!shown && (drawn || (ran && state === 'notRunning'))) { gone(); shown = true; }"
    "if (ran && state === 'notRunning') {"
    "clearInterval(tick);"
    "if (charts) idle(() => import(charts).catch(() => {}), {timeout: 5000});"
    "}"
    "}, 50);"
    "setTimeout(() => { gone(); clearInterval(tick); }, 120000);"
    "})();</script>"
)
ROOT = b'<div id="root"></div>'
#: Ways of sending a file that skip the body this wrapper rewrites (the server then sends bytes).
_FILE_SENDS = ("http.response.pathsend", "http.response.zerocopysend")


def with_opening(page: bytes) -> bytes:
    """The HTML page with :data:`HTML` before the app's root element (unchanged without one)."""
    return page.replace(ROOT, HTML.encode("utf-8") + ROOT, 1)


async def with_opening_words(app: Any, scope: dict, receive: Any, send: Any) -> None:
    """Serve ``app`` (ASGI), adding :data:`HTML` to every HTML page it answers a browser's page
    request (a GET that accepts HTML) with; the page such a request names is the one whose demo
    results the start-up work computes next (:func:`ui.warm.link_opened`)."""
    if scope.get("type") != "http" or scope.get("method") != "GET":
        await app(scope, receive, send)
        return
    headers = scope.get("headers") or []
    if b"text/html" not in dict(headers).get(b"accept", b""):  # not a browser opening a page
        await app(scope, receive, send)
        return
    from ui import warm

    warm.link_opened(str(scope.get("path") or ""))  # the demo's results of this page come next
    # the page uncompressed (8 KB), so that its words can be added; files sent as bytes
    headers = [(k, v) for k, v in headers if k.lower() != b"accept-encoding"]
    extensions = {k: v for k, v in (scope.get("extensions") or {}).items() if k not in _FILE_SENDS}
    held: dict[str, Any] = {}
    chunks: list[bytes] = []

    async def rewrite(message: dict) -> None:
        if message["type"] == "http.response.start":
            headers = {k.lower(): v for k, v in message.get("headers", [])}
            html = headers.get(b"content-type", b"").startswith(b"text/html")
            if message.get("status") == 200 and html and b"content-encoding" not in headers:
                held["start"] = message  # sent with the body, whose length changes
                return
        elif message["type"] == "http.response.body" and "start" in held:
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return
            body = with_opening(b"".join(chunks))
            start = held.pop("start")
            headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
            await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        await send(message)

    await app({**scope, "headers": headers, "extensions": extensions}, receive, rewrite)
