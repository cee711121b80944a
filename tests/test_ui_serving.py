"""The server's connections send small answers at once (``ui.serving``)."""

from __future__ import annotations

import contextlib
import socket
import sys

import pytest

from ui.serving import no_delay

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/fd")


def _nagle_off(sock: socket.socket) -> bool:
    return bool(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))


def test_connections_accepted_after_no_delay_send_small_writes_at_once() -> None:
    """A listening socket bound as Streamlit binds it (protocol 0, which asyncio's own switch
    passes over) gets Nagle's algorithm off, and so does every connection it accepts; a
    connection is left alone, and every descriptor stays open and usable."""
    with contextlib.ExitStack() as stack:
        listening = stack.enter_context(socket.socket(socket.AF_INET))  # no protocol given
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        datagram = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_DGRAM))
        client = stack.enter_context(socket.create_connection(listening.getsockname()))
        before = stack.enter_context(listening.accept()[0])
        assert not _nagle_off(before)  # the default this fixes
        assert not _nagle_off(client)

        assert no_delay() >= 1
        assert _nagle_off(listening)
        client2 = stack.enter_context(socket.create_connection(listening.getsockname()))
        after = stack.enter_context(listening.accept()[0])
        assert _nagle_off(after)
        assert not _nagle_off(client)  # a connection, not a listening socket: untouched
        client2.sendall(b"x")
        assert after.recv(1) == b"x"
        assert datagram.fileno() != -1 and listening.fileno() != -1
