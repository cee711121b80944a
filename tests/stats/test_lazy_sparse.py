"""numpy's tools that scipy's import reads by name (f2py, testing) load on first use: scipy is
imported without them, and they work as ever once used (each case in a fresh process, since a
test process has long imported both)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def _run(code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


LOADED = "print(*[m in sys.modules for m in ('numpy.f2py.crackfortran', 'numpy.testing._private.utils')])\n"


def test_scipy_is_imported_without_numpys_tools_and_they_work_when_used():
    code = (
        "import sys, evalcore, scipy.sparse, numpy\n" + LOADED + "from numpy.testing import assert_allclose\n"
        "assert_allclose(scipy.sparse.eye(2).toarray(), numpy.eye(2))\n"
        "print(callable(numpy.f2py.run_main))\n" + LOADED
    )
    assert _run(code) == ["False", "False", "True", "True", "True"]


def test_without_evalcore_scipy_loads_numpys_tools():
    """The control: the saving is the deferral's (if scipy stopped reading numpy's namespace,
    this fails and the deferral can go)."""
    assert _run("import sys, scipy.sparse\n" + LOADED) == ["True", "True"]


def test_tools_already_loaded_are_left_as_they_are():
    code = (
        "import sys, numpy.testing\n"
        "real = sys.modules['numpy.testing']\n"
        "import evalcore, scipy.sparse\n"
        "print(sys.modules['numpy.testing'] is real, type(real).__name__)\n"
    )
    assert _run(code) == ["True", "module"]


def test_a_deferral_that_fails_never_stops_scipys_import():
    code = (
        "import evalcore.stats.lazy_sparse as lazy\n"
        "def broken():\n"
        "    raise RuntimeError('no deferral')\n"
        "lazy.defer_numpy_tools = broken\n"
        "import scipy.sparse\n"
        "print(scipy.sparse.eye(2).nnz)\n"
    )
    assert _run(code) == ["2"]
