"""How long the server takes to answer a request on a connection it has answered before.

A browser keeps a few connections open and sends each of a page's 100-150 script requests on
one of them, one after another. This starts ``streamlit run app.py`` (this checkout) and sends
``--requests`` requests for one of Streamlit's small scripts on one kept-alive connection, then
each on a new connection, and prints the medians, milliseconds from the request sent to the last
byte of its answer. Nagle's algorithm on the server's side held every answer's body after its
headers until the client acknowledged them (up to 40 ms; ``ui.serving``): 44 ms a request on a
kept-alive connection, against 0.4-2 ms on a new one.

Usage::

    python -m benchmarks.bench_requests [--requests 40]
"""

from __future__ import annotations

import argparse
import re
import socket
import statistics
import tempfile
import time
from pathlib import Path
from urllib.parse import urlparse

from benchmarks.bench_sessions import Server


def small_script(static: Path) -> str:
    """The address of the smallest script Streamlit's page asks for ahead."""
    html = (static / "index.html").read_text()
    names = re.findall(r"\./(static/js/[\w.\-]+\.js)", html)
    return "/" + min(names, key=lambda name: (static / name).stat().st_size)


def fetch(sock: socket.socket, path: str) -> float:
    """Send one GET on ``sock`` and read its whole answer: milliseconds."""
    started = time.perf_counter()
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"(?im)^content-length:\s*(\d+)", head).group(1))
    while len(body) < length:
        body += sock.recv(65536)
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=40)
    args = parser.parse_args()
    import streamlit

    path = small_script(Path(streamlit.__file__).parent / "static")
    with tempfile.TemporaryDirectory() as folder:
        server = Server(Path(folder))
        try:
            time.sleep(5)  # the start-up work's first seconds
            where = urlparse(server.url)
            address = (where.hostname, where.port)
            with socket.create_connection(address) as sock:
                kept = [fetch(sock, path) for _ in range(args.requests)]
            fresh = []
            for _ in range(args.requests):
                with socket.create_connection(address) as sock:
                    fresh.append(fetch(sock, path))
        finally:
            server.close()
    print(f"{path}, {args.requests} requests each, medians (ms, request sent to its answer's last byte):")
    print(f"  on one kept-alive connection: first {kept[0]:.1f}, the rest {statistics.median(kept[1:]):.1f}")
    print(f"  each on a new connection:      {statistics.median(fresh):.1f}")


if __name__ == "__main__":
    main()
