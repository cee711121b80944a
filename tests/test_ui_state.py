"""The session module's process-wide setup (``ui.state``): what the server does once at start."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

# In a fresh interpreter with automatic collection off, so that only ui.state's own collection can
# free the cycle made before the import.
_SCRIPT = """
import gc, weakref
gc.disable()

class Cycle:
    pass

garbage = Cycle()
garbage.me = garbage
alive = weakref.ref(garbage)
del garbage
import ui.state
print(gc.get_freeze_count() > 0, alive() is None)
"""


def test_the_server_freezes_its_imports_but_not_the_garbage_around_them() -> None:
    """Later collections (after every reload) skip what the imports made; garbage that existed
    when they were frozen is collected first, not kept for the server's lifetime."""
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT], capture_output=True, text=True, cwd=ROOT, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    frozen, collected = done.stdout.split()
    assert frozen == "True"
    assert collected == "True"


_READ_SCRIPT = """
import io
import importlib
state = importlib.import_module("ui.state")
from evalcore.store import VerdictStore

released = []
original = state.release_memory
state.release_memory = lambda: (released.append(1), original())
store = VerdictStore()
state.session_store = lambda: store

class Upload(io.BytesIO):  # what st.file_uploader gives: a BytesIO with an id
    file_id = "f1"
    name = "bad.csv"

upload = Upload(b"instruction_id,model_a,model_b,verdict\\nq,a,b,maybe\\n")
ok = state.read_into_session(
    "bad.csv", lambda: store.load_bytes(upload.getvalue(), name="bad.csv"), upload=upload
)
print(ok, upload.closed, len(released) > 0, "maybe" in state.state()["error"])
"""


def test_a_refused_upload_is_dropped_and_its_memory_given_back() -> None:
    """Issue 30, item 3: twenty sessions uploading 50 MB each (some refused) kept the server 900
    MB larger for good. Once read, loaded or refused, the upload's bytes are dropped (Streamlit
    would keep them for the session's life) and the memory the reading took is given back: a
    refused file too (before, only a successful load trimmed the allocator)."""
    done = subprocess.run(
        [sys.executable, "-c", _READ_SCRIPT],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-4:] == ["False", "True", "True", "True"], done.stdout
