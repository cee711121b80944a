"""Page tests run on the small copy of the demo (a tenth of its instructions: the same models,
judges, categories, labels and text) unless a module or a test is marked ``full_demo``.

A page test checks what a page draws against what the library returns for the same data; on the
small copy both sides cost a tenth. Tests of a property of the demo's own numbers (a judge weak
enough to be refused, the paper's human ranking) are marked ``full_demo`` and compare with
``full_demo_store``.
"""

from __future__ import annotations

import importlib

import pytest


def _module_full(module) -> bool:
    marks = getattr(module, "pytestmark", [])
    marks = marks if isinstance(marks, list) else [marks]
    return any(m.name == "full_demo" for m in marks)


@pytest.fixture(scope="module", autouse=True)
def _demo_of_the_module(request, small_demo_dir):
    """The app's demo for this module's fixtures and tests (set before module fixtures open it)."""
    if _module_full(request.module):
        yield
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VERDICTLAB_DEMO_DIR", str(small_demo_dir))
        yield


@pytest.fixture(autouse=True)
def _demo_of_the_test(request, monkeypatch):
    """A test marked ``full_demo`` in a module on the small copy gets the bundled demo."""
    if request.node.get_closest_marker("full_demo") and not _module_full(request.module):
        monkeypatch.delenv("VERDICTLAB_DEMO_DIR", raising=False)


@pytest.fixture(scope="module")
def demo_store(request):
    """The store this module's demo was read from (the small copy unless the module is marked
    ``full_demo``)."""
    return request.getfixturevalue("full_demo_store" if _module_full(request.module) else "small_demo_store")


@pytest.fixture()
def shared_keys(monkeypatch) -> list[tuple]:
    """The keys of the results shared between sessions, in the order they are asked for (without
    the session's identity), over empty shared results: what a page or the start-up work computes
    and in which order."""
    us = importlib.import_module("ui.state")
    monkeypatch.setattr(us, "_SHARED", type(us._SHARED)())
    keys: list[tuple] = []
    real = us.shared_value

    def record(key, compute):
        keys.append(key[3:])
        return real(key, compute)

    monkeypatch.setattr(us, "shared_value", record)
    return keys
