"""A store's table shared read-only with other stores, without copying its rows.

Every browser session has a DuckDB database of its own (:class:`~evalcore.store.store.VerdictStore`),
and every new session starts on the demo: it copied the demo's 342,000 rows from the server's
once-read table into its own database, most of a new visitor's server time. A table that is
shared (:meth:`VerdictStore.share`) is written once, as it is, into a DuckDB file in a temporary
folder; a store that loads it attaches that file read-only and reads it through a view, so a new
session's load is an attach (about a millisecond) and its database reads the rows it queries,
compressed, from the operating system's cache of the file.

Nothing a session does reaches the file: it is attached read-only, and the session's next load
replaces the view by a table of its own and detaches the file. The lending store deletes the file
when it loads another table or closes; a store that attached it keeps reading it (an open file
stays readable on the systems the server runs on), and the next store to load the lender's table
copies it instead.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
import threading
import weakref

import duckdb

from evalcore._sql import sql_literal
from evalcore.store.text import FOLDER_PREFIX, _cursor, sweep_orphans

#: How an attached shared table's database is named in a borrowing store (a number follows).
ALIAS_PREFIX = "vl_shared_"
_NUMBERS = itertools.count(1)
#: Held while a lender writes its file: the writing changes a setting of the lender's database.
_WRITING = threading.Lock()


class SharedTable:
    """One table written to a read-only file for other stores to attach (see the module)."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        sweep_orphans()
        # the owner's process id in the name: a killed server's folder is swept by the next one
        folder = tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-shared-")
        self._cleanup = weakref.finalize(self, shutil.rmtree, folder, ignore_errors=True)
        self.path = os.path.join(folder, "verdicts.duckdb")
        #: the name borrowing stores attach it under (one per file: two demos never collide)
        self.alias = f"{ALIAS_PREFIX}{next(_NUMBERS)}"
        writer = f"{self.alias}_w"
        with _WRITING:
            cur = _cursor(con)  # (a lender's cursors are made one at a time: borrowers read its text)
            try:
                # the text area stores its long strings uncompressed (a database-wide setting);
                # the verdicts compress to a fifth, which every borrower's reads gain from
                before = one_setting(cur, "force_compression")
                cur.execute("SET force_compression = 'auto'")
                cur.execute(f"ATTACH {sql_literal(self.path)} AS {writer}")
                try:
                    cur.execute(f'CREATE TABLE {writer}.verdicts AS SELECT * FROM verdicts ORDER BY "row"')
                finally:
                    cur.execute(f"DETACH {writer}")
                    cur.execute(f"SET force_compression = {sql_literal(before)}")
            except BaseException:
                self.delete()
                raise
            finally:
                cur.close()

    def attach(self, cur: duckdb.DuckDBPyConnection) -> bool:
        """Attach the file read-only to ``cur``'s database (idempotent); False when it is gone
        (its lender loaded another table or closed since)."""
        try:
            cur.execute(f"ATTACH IF NOT EXISTS {sql_literal(self.path)} AS {self.alias} (READ_ONLY)")
        except duckdb.IOException:
            return False
        return True

    def delete(self) -> None:
        """Delete the file (stores that attached it keep reading it)."""
        self._cleanup()


def one_setting(cur: duckdb.DuckDBPyConnection, name: str) -> str:
    row = cur.execute("SELECT current_setting(?)", [name]).fetchone()
    return str(row[0]) if row else ""
