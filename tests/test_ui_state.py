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
