"""``scipy.sparse``, imported on first use.

Importing scipy's sparse matrices costs about a third of a second of CPU (scipy's array API
layer imports most of numpy's submodules), more than a small leaderboard's whole fit. Few
models never need them (their fits, bootstrap and split halves work on models × models
arrays), so the modules that also serve many models name ``sparse`` through this proxy: the
first attribute read imports scipy.sparse, and a ranking of few models never pays for it.
Type checkers see the real module (``if TYPE_CHECKING: from scipy import sparse``).

Where scipy is imported, its array API layer copies numpy's namespace (SciPy 1.17's
``clone_module``), and reading every name loads numpy's Fortran wrapper generator (``f2py``) and
its testing tools, which no analysis uses: 0.13-0.15 s of a 0.25-0.29 s import of
``scipy.sparse`` on the project's 2-core machine. :func:`defer_numpy_tools` installs those two as
modules that load on first use (:class:`importlib.util.LazyLoader`), just before the first scipy
import; code that uses them (a test's ``numpy.testing``) loads them then, as before.
"""

from __future__ import annotations

import sys
from typing import Any


class _LazySparse:
    """Forwards every attribute to ``scipy.sparse``, imported at the first one (then kept)."""

    def __getattr__(self, name: str) -> Any:
        import scipy.sparse

        value = getattr(scipy.sparse, name)
        object.__setattr__(self, name, value)  # later reads skip this method
        return value


sparse: Any = _LazySparse()


def issparse(value: object) -> bool:
    """``scipy.sparse.issparse(value)`` without importing scipy: nothing is a sparse matrix
    before scipy.sparse is loaded."""
    module = sys.modules.get("scipy.sparse")
    return module is not None and bool(module.issparse(value))


#: numpy's submodules that scipy's import reads by name and nothing here uses. numpy's masked
#: arrays are not among them: pandas reads them at run time, possibly from several threads at
#: once, and Python 3.11's lazy modules are not safe to load from two threads at the same time.
NUMPY_TOOLS = ("f2py", "testing")


def defer_numpy_tools() -> None:
    """Install numpy's :data:`NUMPY_TOOLS` as modules that load on their first attribute read,
    unless already imported. The module is set on numpy too: numpy's own lazy attribute would
    otherwise import it again."""
    import importlib.util

    import numpy

    for name in NUMPY_TOOLS:
        full = f"numpy.{name}"
        if full in sys.modules:
            continue
        spec = importlib.util.find_spec(full)
        if spec is None or spec.loader is None:
            continue
        spec.loader = importlib.util.LazyLoader(spec.loader)
        module = importlib.util.module_from_spec(spec)
        sys.modules[full] = module
        spec.loader.exec_module(module)
        setattr(numpy, name, module)


class _BeforeScipy:
    """An import finder (:class:`importlib.abc.MetaPathFinder`'s one method; not a subclass,
    whose import costs 30 ms) that runs :func:`defer_numpy_tools` when scipy is first imported,
    then steps aside: it finds nothing itself, so scipy is imported as ever."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if fullname == "scipy":
            try:
                sys.meta_path.remove(self)
            except ValueError:  # another thread's import got here first
                return None
            try:
                defer_numpy_tools()
            except Exception:  # noqa: BLE001 - a saving of time: scipy is imported either way
                pass
        return None


def defer_numpy_tools_until_scipy() -> None:
    """Defer numpy's :data:`NUMPY_TOOLS` once scipy is about to be imported (nothing to do if it
    already is): ``import evalcore`` stays free of numpy."""
    if "scipy" not in sys.modules and not any(isinstance(f, _BeforeScipy) for f in sys.meta_path):
        sys.meta_path.insert(0, _BeforeScipy())
