"""The code's shape stays as the developers' guide asks: floors without circles, short modules,
pages as storyboards.

* No import cycle between evalcore's modules, nor between its packages (a top-level module counts
  as a package of its own). Imports under ``if TYPE_CHECKING:`` are annotations only and never run,
  so they are left out of the cycle check (but not out of the floor check).
* Floors: the analyses (stats, ranking, ties, anchors, power, calibration, judge, verdicts) never
  import ``present/`` (the words) or ``store/`` (DuckDB); ``ingest/`` never imports ``store/``.
* A face printing a key the catalogue does not know (a ``--json`` key, a report table heading,
  a page's tile label) is caught in ``tests/test_catalogue.py`` (``unplaced``, with a planted one).
* A page calls about a dozen presentation helpers at most: more means the page is building its
  own tables and sentences instead of drawing one result per section.
* No evalcore module is much over 500 lines unless its docstring says why it stays one module
  ("Why this module is longer than 500 lines: …"), and no page is much over 150 lines.

Each checker is a plain function of a small graph or source text, tested here on a planted
violation, so a check that silently stopped seeing anything would fail too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

#: "about 500" and "about 150": a few lines of slack so a docstring edit does not trip the test.
MODULE_LINES = 520
PAGE_LINES = 155
REASON = re.compile(r"Why (this|one) module\b[^.]*\blines\b")

#: "about a dozen" distinct presentation helpers per page.
PAGE_HELPERS = 12
#: Pages that still call more (their count when the check came in): a ceiling that may only fall;
#: a page that reaches the dozen leaves the list.
BUSY_PAGES: dict[str, int] = {}

ANALYSES = frozenset({"stats", "ranking", "ties", "anchors", "power", "calibration", "judge", "verdicts"})
#: package -> the packages it must never import
FORBIDDEN = {**{a: frozenset({"present", "store"}) for a in ANALYSES}, "ingest": frozenset({"store"})}

#: Analyses that still build a DuckDB store themselves (none now: a caller loads a frame into a store;
#: the analyses read it through ``evalcore.counts.CountSource``). Listed so that no new one appears; the test also fails
#: when one of them stops, so the list only shrinks. (module, imported module)
KNOWN_STORE_READERS: frozenset[tuple[str, str]] = frozenset()


# -- the import graph ------------------------------------------------------------------------------


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_only_lines(tree: ast.Module) -> set[int]:
    """Line numbers of the statements under ``if TYPE_CHECKING:``."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def imports_of(source: str, name: str, modules: set[str]) -> dict[str, bool]:
    """The evalcore modules ``source`` (module ``name``) imports -> True when every import of it
    is under ``if TYPE_CHECKING:``. ``from a import b`` names module ``a.b`` when that exists;
    relative imports are resolved against ``name``."""

    def known(dotted: str) -> str | None:
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    tree = ast.parse(source)
    type_only = _type_only_lines(tree)
    found: dict[str, bool] = {}
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".")
                is_package = any(m.startswith(name + ".") for m in modules)
                anchor = parts[: len(parts) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        for target in targets:
            mod = known(target) if target.split(".")[0] == "evalcore" else None
            if mod is None or mod == name:
                continue
            found[mod] = found.get(mod, True) and node.lineno in type_only
    return found


def import_graph(root: Path) -> dict[str, dict[str, bool]]:
    """evalcore's modules (dotted) -> the evalcore modules each imports (-> type-only)."""
    paths = {
        module_name(p, root): p for p in (root / "evalcore").rglob("*.py") if "__pycache__" not in p.parts
    }
    names = set(paths)
    return {m: imports_of(p.read_text(encoding="utf-8"), m, names) for m, p in paths.items()}


def package_of(module: str, packages: set[str]) -> str:
    """``evalcore.store.queries`` -> ``store``; a top-level module is a package of its own."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def runtime_edges(graph: dict[str, dict[str, bool]]) -> dict[str, set[str]]:
    return {m: {t for t, type_only in targets.items() if not type_only} for m, targets in graph.items()}


def package_edges(graph: dict[str, dict[str, bool]], packages: set[str]) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for module, targets in runtime_edges(graph).items():
        here = package_of(module, packages)
        edges.setdefault(here, set())
        for target in targets:
            there = package_of(target, packages)
            if there != here:
                edges[here].add(there)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    nodes = sorted(set(edges) | {t for ts in edges.values() for t in ts})
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def floor_violations(graph: dict[str, dict[str, bool]], packages: set[str]) -> set[tuple[str, str]]:
    """(module, imported module) pairs where a package imports one it must never import."""
    bad = set()
    for module, targets in graph.items():
        here = package_of(module, packages)
        for target in targets:
            if package_of(target, packages) in FORBIDDEN.get(here, ()):
                bad.add((module, target))
    return bad


def presentation_helpers(source: str) -> set[str]:
    """The distinct ``evalcore.present`` helpers a page's source calls: functions imported from a
    present module, and functions read off a present module bound to a name (texts and constants
    are not calls and do not count)."""
    tree = ast.parse(source)
    bound: set[str] = set()
    imported: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("evalcore.present"):
            for alias in node.names:
                if node.module == "evalcore.present":  # ``from evalcore.present import ties as show``
                    bound.add(alias.asname or alias.name)
                else:
                    imported[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("evalcore.present") and alias.asname:
                    bound.add(alias.asname)
    helpers: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in bound:
            helpers.add(f"{func.value.id}.{func.attr}")
        elif isinstance(func, ast.Name) and func.id in imported:
            helpers.add(imported[func.id])
    return helpers


@pytest.fixture(scope="module")
def graph() -> dict[str, dict[str, bool]]:
    return import_graph(ROOT)


@pytest.fixture(scope="module")
def packages() -> set[str]:
    return {p.name for p in (ROOT / "evalcore").iterdir() if (p / "__init__.py").exists()}


def test_the_graph_sees_evalcores_imports(graph):
    # guards against a builder that silently finds nothing
    assert len(graph) > 100
    assert "evalcore.counts" in graph["evalcore.store.store"]
    assert "evalcore.store.queries" in graph["evalcore.store.store"]


def test_no_import_cycle_between_modules(graph):
    found = cycles(runtime_edges(graph))
    assert not found, f"import cycles between modules (break each with a lower module): {found}"


def test_no_import_cycle_between_packages(graph, packages):
    found = cycles(package_edges(graph, packages))
    assert not found, f"import cycles between evalcore's packages: {found}"


def test_floors(graph, packages):
    bad = floor_violations(graph, packages)
    new = sorted(bad - KNOWN_STORE_READERS)
    assert not new, (
        "an analysis imports present/ or store/, or ingest imports store/; take the counts or "
        f"rows as arguments instead: {new}"
    )
    gone = sorted(KNOWN_STORE_READERS - bad)
    assert not gone, f"no longer read the store: remove them from KNOWN_STORE_READERS: {gone}"


@pytest.mark.parametrize("path", sorted((ROOT / "pages").glob("*.py")), ids=lambda p: p.name)
def test_pages_call_about_a_dozen_presentation_helpers(path):
    used = presentation_helpers(path.read_text(encoding="utf-8"))
    if path.name in BUSY_PAGES:
        assert len(used) > PAGE_HELPERS, f"{path.name} is down to {len(used)}: remove it from BUSY_PAGES"
    assert len(used) <= BUSY_PAGES.get(path.name, PAGE_HELPERS), (
        f"{path.name} calls {len(used)} presentation helpers ({sorted(used)}): each section should "
        "draw one result; build the tables in one presentation function."
    )


PAGE_FILE = re.compile(r"^(pages/\w+\.py|app\.py)$")


def page_paths(source: str) -> set[str]:
    """Page files named by a string in ``source`` (a link that bypasses the registry)."""
    return {
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and PAGE_FILE.match(node.value)
    }


@pytest.mark.parametrize(
    "path",
    [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").glob("*.py"))],
    ids=lambda p: p.relative_to(ROOT).as_posix(),
)
def test_page_links_come_from_the_registry(path):
    if path == ROOT / "ui" / "navigation.py":  # the registry itself
        return
    named = page_paths(path.read_text(encoding="utf-8"))
    assert not named, f"{path.name} names page files {sorted(named)}: link through ui.navigation.page_link"


# -- the checkers, on planted violations ----------------------------------------------------------


def test_a_planted_page_path_is_found():
    assert page_paths('st.page_link("pages/verdicts.py", label="x")\n') == {"pages/verdicts.py"}
    assert page_paths('page_link("verdicts", label="x")\nopen("pages/notes.txt")\n') == set()


def test_cycles_finds_a_planted_cycle_and_nothing_else():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"x": {"y"}, "y": {"x"}, "p": {"q"}, "q": {"p"}}) == [["p", "q"], ["x", "y"]]


def test_type_only_imports_are_marked_and_left_out_of_cycles():
    modules = {"evalcore.a", "evalcore.b"}
    src_a = "from evalcore import b\n"
    src_b = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from evalcore.a import X\n"
    graph = {
        "evalcore.a": imports_of(src_a, "evalcore.a", modules),
        "evalcore.b": imports_of(src_b, "evalcore.b", modules),
    }
    assert graph == {"evalcore.a": {"evalcore.b": False}, "evalcore.b": {"evalcore.a": True}}
    assert cycles(runtime_edges(graph)) == []
    graph["evalcore.b"]["evalcore.a"] = False  # the same import at run time is a cycle
    assert cycles(runtime_edges(graph)) == [["evalcore.a", "evalcore.b"]]


def test_imports_inside_functions_and_relative_imports_count():
    modules = {"evalcore.p", "evalcore.p.x", "evalcore.p.y", "evalcore.q"}
    src = "def f():\n    from evalcore.q import z\nfrom .y import w\nimport evalcore.p.x as xx\n"
    assert imports_of(src, "evalcore.p.x", modules) == {"evalcore.q": False, "evalcore.p.y": False}
    assert imports_of(src, "evalcore.p.y", modules) == {"evalcore.q": False, "evalcore.p.x": False}


def test_a_planted_package_cycle_is_found():
    graph = {
        "evalcore.anchors.a": {"evalcore.power.b": False},
        "evalcore.power.b": {"evalcore.counts": False},
        "evalcore.power.c": {"evalcore.anchors.a": False},
        "evalcore.counts": {},
    }
    assert cycles(package_edges(graph, {"anchors", "power"})) == [["anchors", "power"]]
    del graph["evalcore.power.c"]
    assert cycles(package_edges(graph, {"anchors", "power"})) == []


def test_a_planted_floor_violation_is_found():
    graph = {
        "evalcore.judge.x": {"evalcore.present.judge": True},  # even for annotations only
        "evalcore.ingest.y": {"evalcore.store.store": False},
        "evalcore.present.judge": {"evalcore.judge.x": False},  # present reads analyses: fine
        "evalcore.store.store": {"evalcore.ingest.y": False},  # store reads ingest: fine
        "evalcore.cli.z": {"evalcore.store.store": False},
    }
    assert floor_violations(graph, {"judge", "ingest", "present", "store", "cli"}) == {
        ("evalcore.judge.x", "evalcore.present.judge"),
        ("evalcore.ingest.y", "evalcore.store.store"),
    }


def test_presentation_helpers_are_counted_on_a_planted_page():
    calls = "\n".join(f"show.helper_{i}(x)" for i in range(12))
    page = (
        "from evalcore.present import ties as show\nfrom evalcore.present.ties import TABS, table\n"
        f"{calls}\nshow.helper_0(y)\nst.tabs(TABS)\nst.write(show.INTRO)\n"
    )
    assert len(presentation_helpers(page)) == 12  # a repeat, a text and an unused import do not count
    used = presentation_helpers(page + "table(r)\n")
    assert len(used) == 13 > PAGE_HELPERS
    assert presentation_helpers("import evalcore\nfrom evalcore.ties import within\nwithin.f()\n") == set()


# -- lengths ----------------------------------------------------------------------------------------


def _lines(path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def _modules():
    return sorted(p for p in (ROOT / "evalcore").rglob("*.py") if "__pycache__" not in p.parts)


def test_the_reason_pattern_matches_the_phrasings_in_use():
    assert REASON.search("Why this module is longer than 500 lines: it is the one façade")
    assert REASON.search("Why one module of about 550 lines: one short function per section")
    assert not REASON.search("This module is long. It has many lines.")


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_long_modules_say_why(path):
    name = path.relative_to(ROOT).as_posix()
    if _lines(path) <= MODULE_LINES:
        return
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    assert REASON.search(doc), (
        f"{name} has {_lines(path)} lines: split it by concept, or say at the top of its docstring "
        "why it stays one module ('Why this module is longer than 500 lines: …')."
    )


@pytest.mark.parametrize(
    "path", [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))], ids=lambda p: p.name
)
def test_pages_are_storyboards(path):
    assert _lines(path) <= PAGE_LINES, (
        f"{path.name} has {_lines(path)} lines: move logic into an evalcore presentation module or ui/."
    )


def test_few_modules_at_the_top_of_evalcore():
    top = sorted(p.name for p in (ROOT / "evalcore").glob("*.py"))
    assert len(top) <= 16, (
        f"evalcore/ holds {len(top)} modules at the top; put them in a package by layer: {top}"
    )


# -- the command line: a table of commands, one selection preamble ---------------------------------

#: What only evalcore/cli/common.py may call: building parsers and choosing the judge.
CLI_OWN_CALLS = frozenset({"add_argument", "add_parser", "add_subparsers", "pick_judge"})


def cli_problems(source: str, shared_flags: set[str]) -> list[str]:
    """What a command module does that the table of commands does once: declaring an argument
    itself (``add_argument``), choosing the judge outside ``select``, or declaring one of the
    shared options by its flag (``opt("--seed", …)`` instead of ``opt("seed", …)``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in CLI_OWN_CALLS:
            found.append(f"line {node.lineno}: calls {name}")
        first = node.args[0] if node.args else None
        if name == "opt" and isinstance(first, ast.Constant) and first.value in shared_flags:
            found.append(f"line {node.lineno}: declares the shared option {first.value}")
    return found


def _shared_flags() -> set[str]:
    from evalcore.cli.common import SHARED

    return {flag for flags, _ in SHARED.values() for flag in flags if flag.startswith("-")}


@pytest.mark.parametrize(
    "path",
    [
        p
        for p in sorted((ROOT / "evalcore" / "cli").glob("*.py"))
        if p.name not in {"common.py", "__init__.py"}
    ],
    ids=lambda p: p.name,
)
def test_commands_declare_no_shared_option_and_choose_no_judge(path):
    found = cli_problems(path.read_text(encoding="utf-8"), _shared_flags())
    assert not found, (
        f"{path.name}: list the command's options in its Command, the shared ones by name "
        f"(evalcore.cli.common.SHARED), and select the file, judge and category with select(): {found}"
    )


def test_a_planted_command_problem_is_found():
    planted = (
        'p.add_argument("--x")\n'
        "judge = pick_judge(store, args.judge)\n"
        'OPTIONS = (opt("--seed", type=int), opt("seed"), opt("--tau"))\n'
    )
    assert cli_problems(planted, {"--seed", "--json"}) == [
        "line 1: calls add_argument",
        "line 2: calls pick_judge",
        "line 3: declares the shared option --seed",
    ]


def star_imports(source: str) -> list[str]:
    """The modules ``source`` imports with ``*`` (their names then reach a reader unseen)."""
    return [
        node.module or "."
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
    ]


def test_no_module_imports_with_a_star():
    # A words module re-exported by ``import *`` made a page's ``show.NAME`` come from a module
    # the reader could not see; a face imports the words module it reads.
    files = [*sorted((ROOT / "evalcore").rglob("*.py")), *sorted((ROOT / "ui").glob("*.py"))]
    files += [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
    found = {p.relative_to(ROOT).as_posix(): star_imports(p.read_text(encoding="utf-8")) for p in files}
    assert not {k: v for k, v in found.items() if v}


def test_a_planted_star_import_is_found():
    assert star_imports("from evalcore.present.verdict_words import *  # noqa: F403\n") == [
        "evalcore.present.verdict_words"
    ]
    assert star_imports("from evalcore.present import verdict_words as words\n") == []
