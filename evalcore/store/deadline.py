"""A time budget for DuckDB work: a watchdog thread that stops a connection's query once the
budget is spent, so that one session's load ends in words instead of holding a share of the
server's cores for as long as the file takes (issue 30: a load ran 173 s before it failed).

DuckDB can stop a running query from another thread (``interrupt``); Python code between
queries is not stopped, so the watchdog interrupts again every 50 ms until the work under it
ends (the next query it starts is stopped too), and the load checks before it commits. Used by
:meth:`evalcore.store.store.VerdictStore.load_file` and ``load_bytes`` with
:attr:`evalcore.limits.LoadLimits.max_seconds`.
"""

from __future__ import annotations

import threading
from types import TracebackType

import duckdb

from evalcore.errors import ResourceLimitError

__all__ = ["Watchdog"]


class Watchdog:
    """Interrupt ``cursor`` once ``seconds`` have passed (0: never), until :meth:`stop`.

    >>> con = duckdb.connect()
    >>> with Watchdog(con, 0, what="reading t.csv") as dog:
    ...     con.execute("SELECT 1").fetchall()
    [(1,)]
    >>> dog.expired
    False
    """

    def __init__(self, cursor: duckdb.DuckDBPyConnection, seconds: float, *, what: str) -> None:
        self.cursor, self.seconds, self.what = cursor, float(seconds), what
        self.expired = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Watchdog:
        if self.seconds > 0:
            self._thread = threading.Thread(target=self._run, name="vl-watchdog", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        if self._stop.wait(self.seconds):
            return
        self.expired = True
        while not self._stop.is_set():
            try:
                self.cursor.interrupt()
            except duckdb.Error:  # the connection closed meanwhile: nothing left to stop
                return
            self._stop.wait(0.05)

    def stop(self) -> None:
        """No more interrupts (before a rollback and clean-up that must run)."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def refusal(self) -> ResourceLimitError:
        """The words for work stopped by the budget."""
        return ResourceLimitError(
            f"{self.what[:1].upper()}{self.what[1:]} took longer than the {self.seconds:,.0f} "
            "seconds one load may take on this server (VERDICTLAB_LOAD_SECONDS), so it was "
            "stopped; the data loaded before stays. Load a sample of the file or split it, "
            "convert it to Parquet (read several times faster than CSV or JSON), or run the "
            "command-line tool on it with VERDICTLAB_LOAD_SECONDS set higher."
        )
