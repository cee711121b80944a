"""How the server's connections send: small answers without waiting.

Streamlit binds its listening socket itself (``socket.socket(family=...)``, protocol 0), and
asyncio turns Nagle's algorithm off only on sockets whose protocol says TCP: on this server every
connection kept it on. A small write that follows another (an answer's body after its headers, a
page's next element after the one before, over the page's WebSocket) then waited for the
browser's acknowledgement of the first, which the browser's system delays by up to 40 ms.
Measured on ``streamlit run app.py`` (``benchmarks/bench_requests.py``): every request after a
connection's first took 44 ms for a small script (its headers came after 0.5 ms), and a
browser's first visit asks for 100-150 of them, six connections at a time. Connections accepted
by a listening socket inherit its setting (Linux), so :func:`no_delay` sets it there, once,
before the server answers (app.py's start-up hook).
"""

from __future__ import annotations

import os
import socket


def no_delay() -> int:
    """Turn Nagle's algorithm off on this process's listening TCP sockets (where the system
    lists a process's open files in ``/proc/self/fd``; elsewhere nothing changes): how many."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except (OSError, ValueError):
        return 0
    done = 0
    for fd in fds:
        try:
            sock = socket.socket(fileno=fd)  # wraps the descriptor without a copy: detached below
        except OSError:  # not a socket
            continue
        try:
            listening = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)
            if (
                sock.family in (socket.AF_INET, socket.AF_INET6)
                and sock.type == socket.SOCK_STREAM
                and listening
            ):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                done += 1
        except OSError:
            pass
        finally:
            sock.detach()  # the descriptor stays open, owned by whoever opened it
    return done
