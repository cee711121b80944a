"""One quantity, one name, one number: the catalogue of reported quantities and every face that
reads it.

- The catalogue itself: unique names, known units and formats, a reference for every method.
- ``docs/glossary.md`` and the Methods page are generated from it.
- Every key the command line's ``--json`` prints is a catalogue key or a listed structural or
  detail key (so a new key has to be placed).
- Walking every page of the bundled demo (and its HTML report): every tile label that names a
  quantity is a catalogue name, one catalogue id never shows two values (tiles, tile notes and
  the sentences that name a quantity), no retired ambiguous name is back, and no heading, chart
  title or tile label carries a section sign, a figure or table number, a module name or a path.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from html import unescape
from pathlib import Path

import pytest

from evalcore import quantities as q
from evalcore.cli import main
from tests.conftest import OPEN_TABS, ROOT, new_app

PAGES = (
    "app.py",
    "pages/overview.py",
    "pages/leaderboard.py",
    "pages/judge.py",
    "pages/verdicts.py",
    "pages/calibration.py",
    "pages/ties.py",
    "pages/power.py",
    "pages/anchors.py",
    "pages/anchor_planning.py",
    "pages/methods.py",
)

#: Tile labels that name a thing, a verdict in words or a design, not a quantity.
STRUCTURAL_LABELS = {
    "Leader",
    "Top two separated?",
    "Recommended anchor",
    "Win rate correctable?",
    "Distributions",
    "Judge calls per instruction",
}

#: Quantities a page shows once per reference (the Tie structure page's agreement rows: against
#: the human labels, then against the human ranking): one value per reference, not per page.
PER_REFERENCE = {"tau_a", "tau_b", "somers_d", "top1", "uniform_top1", "reference_top_tied"}

#: Names that once stood for two quantities, or for a symbol: none may come back as a label or
#: a table heading.
RETIRED = {
    "Tie probability",
    "TIE verdicts",
    "Tie rate",
    "Informativeness I",
    "Mean informativeness",
    "N for sign test",
    "N for Wilcoxon",
    "Instructions N",
    "Printed",
    "Corrected",
    "Se",
    "Sp",
    "D1",
    "D2",
    "T (top tied)",
    "τa",
    "τb",
    "κ",
    "Cohen's κ",
    "Win rate",
    "Slot bias b",
    "Length effect γ",
    "Lead over #2 (Elo)",
    "Detectable edge at N × I",
    "No verdict",
}

#: Sentences that name a quantity: the pattern's number is that quantity's value.
SENTENCES = {
    "predicted_preference": r"would be preferred in about ([\d.]+%)",
    "differing_share_won": r"share of differing instructions won ([\d.]+%)",
    "instructions_needed": (
        r"instead of ([\d,]+) \("
        r"|About ([\d,]+) instructions\*\* to detect a \+5% edge"
        r"|fewer than the ([\d,]+) needed to detect a \+5% edge"
    ),
    "correction_floor": r"cannot be tighter than ±([\d.]+) percentage points",
    "tie_rate": r"calls a tie on ([\d.]+%) of its verdicts",
    "both_orders_tie_rate": r"([\d.]+%) of the pairs end as ties",
    "flip_rate": r"When the answers swap places, ([\d.]+%)",
    "swap_consistency": r"swap consistency ([\d.]+%)",
    "same_level_chance": r"same-level chance ([\d.]+%)",
    "printed_win_rate": r"prints a win rate of ([\d.]+%)",
}

#: Tile notes under a tile ("informativeness 58.5%", "22.2% both orders"): id and pattern.
NOTES = {
    "informativeness": r"informativeness ([\d.]+%)",
    "both_orders_tie_rate": r"([\d.]+%) both orders",
    "flip_rate": r"flip rate ([\d.]+%)",
    "correction_floor": r"floor ±([\d.]+) pp",
}

#: No heading, chart title or tile label carries these.
DETAIL_IN_HEADINGS = re.compile(
    r"§|\bFig\.|\bTable \d|\b(evalcore|ui|pages|scripts|benchmarks|streamlit)\.[a-z_]|\bApp\. [A-Z]\b"
    r"|[\w.-]+/[\w.-]+\.(py|csv|parquet|json|jsonl|md)\b|\b\w+\.py\b"
)

#: A pointer on screen ("see the glossary", "(see **Calibration**)"): what follows "see", unless
#: "see" is the verb of a clause ("see how tau grows", "to see what the section shows").
POINTER = re.compile(
    r"\bsee (?!how\b|what\b|whether\b|which\b|why\b|if\b|that\b|it\b|them\b)([^.;,)(]{1,70})"
)


def _clean(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", str(text)).replace("\u2060", "")


def _number(text: str) -> float:
    """The number in a displayed value: '+19.4 pp' → 19.4, '1,056' → 1056, '58.5%' → 58.5."""
    return float(re.sub(r"[^\d.\-]", "", text.replace("−", "-")).strip(".") or "nan")


def _chart_titles(at) -> list[str]:
    titles = []
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        title = spec.get("layout", {}).get("title", {})
        titles.append(title.get("text", "") if isinstance(title, dict) else str(title))
    return [t for t in titles if t]


def _report_html(tmp_path: Path) -> str:
    out = tmp_path / "report.html"
    # the judge the app opens the demo on: the default judge of every face (tests/test_default_judge.py)
    demo = ROOT / "data" / "demo_all_pairs.parquet"
    # ...and the human ranking the app opens the demo with
    human = ROOT / "data" / "demo_human_ranking.csv"
    args = ["report", str(demo), "--judge", "sim-judge-steady", "--human-ranking", str(human)]
    assert main([*args, "-o", str(out)]) == 0
    return out.read_text(encoding="utf-8")


def _plain(html: str) -> str:
    text = re.sub(r"<(style|script)\b.*?</\1>", " ", html, flags=re.S)
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text))).strip()


def _seen(at) -> dict[str, list]:
    """What a page shows as drawn now: tiles, tables, text and headings."""
    return {
        "tiles": [(_clean(m.label), _clean(m.value), _clean(m.proto.delta)) for m in at.metric],
        "headers": [str(c) for d in at.dataframe for c in d.value.columns],
        "text": [
            _clean(e.value)
            for kind in ("markdown", "caption", "info", "warning", "success", "error")
            for e in getattr(at, kind)
        ],
        # the boxed notes a reader is told once: (kind, text)
        "alerts": [
            (kind, _clean(e.value))
            for kind in ("info", "warning", "success", "error")
            for e in getattr(at, kind)
        ],
        "headings": [_clean(e.value) for kind in ("title", "header", "subheader") for e in getattr(at, kind)]
        + [_clean(m.label) for m in at.metric]
        + _chart_titles(at),
        # what a reader can open on the page: its headings, expanders and tabs
        "openers": [_clean(e.value) for kind in ("title", "header", "subheader") for e in getattr(at, kind)]
        + [_clean(e.label) for e in at.expander]
        + [_clean(e.label) for e in at.tabs],
    }


def _open_tabs_keys() -> dict[str, str]:
    """Each page that draws only its open tab (calls ``open_tabs``) → the tabs' widget key, read
    from the pages' source."""
    import ast

    found = {}
    for path in sorted((ROOT / "pages").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            func = getattr(node, "func", None)
            if isinstance(node, ast.Call) and getattr(func, "attr", getattr(func, "id", "")) == "open_tabs":
                key = next(k.value for k in node.keywords if k.arg == "key")
                found[f"pages/{path.name}"] = key.value
    return found


def test_the_walk_opens_every_tab_of_every_page_that_draws_its_open_tab_only():
    """The walk below reads every tab of the pages in OPEN_TABS: a page whose hidden tabs are not
    drawn and is missing there would have its tabs' numbers left out of every check."""
    assert _open_tabs_keys() == OPEN_TABS
    assert OPEN_TABS["pages/leaderboard.py"] == "lb_tab"


@pytest.fixture(scope="module")
def walk(tmp_path_factory):
    """Every page of the bundled demo as a visitor opens it (defaults untouched), and the report
    the command line writes for the same file: tiles, tables, text and headings."""
    at = new_app(timeout=600)
    at.run()
    assert not at.exception
    seen: dict[str, dict] = {}
    for page in PAGES:
        if page != "app.py":
            at.switch_page(page).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        seen[page] = _seen(at)
        for label in [t.label for t in at.tabs][1:] if page in OPEN_TABS else []:
            # a page that draws its open tab only: each tab as a visitor opens it, in turn
            at.session_state[OPEN_TABS[page]] = label
            at.run()
            assert not at.exception, (page, label, [e.value for e in at.exception])
            for part, found in _seen(at).items():
                seen[page][part] += [item for item in found if item not in seen[page][part]]
    html = _report_html(tmp_path_factory.mktemp("r"))
    seen["report"] = {
        "html": html,
        "alerts": [],
        "tiles": [],
        "headers": [],
        "text": [_plain(html)],
        "headings": [],
        "openers": [],
    }
    return seen


def _values(walk) -> dict[str, set[tuple[float, str]]]:
    """Every displayed value by catalogue id: (number, where)."""
    values: dict[str, set[tuple[float, str]]] = defaultdict(set)
    for page, seen in walk.items():
        for label, value, note in seen["tiles"]:
            qid = q.lookup(label)
            if qid is not None and qid not in PER_REFERENCE and re.search(r"\d", value):
                values[qid].add((_number(value), f"{page}: tile {label!r} = {value}"))
            for nid, pattern in NOTES.items():
                for found in re.finditer(pattern, note):
                    values[nid].add((_number(found[1]), f"{page}: note {note!r} under {label!r}"))
        for text in seen["text"]:
            for qid, pattern in SENTENCES.items():
                for found in re.finditer(pattern, text):
                    number = next(g for g in found.groups() if g)
                    values[qid].add((_number(number), f"{page}: {found[0]!r}"))
    return values


# -- the catalogue ---------------------------------------------------------------------------


def test_every_entry_is_complete_and_names_are_unique():
    names = [entry.name.casefold() for entry in q.CATALOGUE.values()]
    assert len(names) == len(set(names)), "two quantities share a name"
    for entry in q.CATALOGUE.values():
        assert entry.unit in q.UNITS, entry
        assert entry.fmt in q.FORMATS, entry
        assert entry.definition.endswith(".") and len(entry.definition) > 15, entry
        assert entry.method, entry
        if entry.reference is not None:
            assert entry.reference.authors and entry.reference.title and 1900 < entry.reference.year < 2100
        assert q.lookup(entry.name) == entry.id
    # the four "how often A beats B" are four entries with four names
    four = ("predicted_preference", "head_to_head_win_rate", "printed_win_rate", "differing_share_won")
    assert len({q.name(i) for i in four}) == 4
    # ...and a --json key carries one quantity: "calls" once meant every call of the table on one
    # face and the calls a budget buys on another
    owners: dict[str, list[str]] = defaultdict(list)
    for entry in q.CATALOGUE.values():
        for key in (*entry.json_keys, entry.id):
            owners[key].append(entry.id)
    shared = {key: ids for key, ids in owners.items() if len(set(ids)) > 1}
    assert not shared, f"a --json key that stands for two quantities: {shared}"


def test_format_writes_each_unit_once():
    assert q.format("tie_rate", 0.0292) == "2.9%"
    assert q.format("same_level_chance", 0.340) == "34.0%"
    assert q.format("position_bias", 19.38) == "+19.4 pp"
    assert q.format("correction_floor", 27.81) == "±27.8 pp"
    assert q.format("instructions_needed", 1056) == "1,056"
    assert q.format("rating", 1306.6) == "1,307"
    assert q.format("informativeness", float("nan")) == "—"
    with pytest.raises(KeyError, match="not in the catalogue"):
        q.format("no_such_quantity", 1.0)


def test_the_glossary_in_docs_is_generated_from_the_catalogue():
    """docs/glossary.md is ``scripts/write_glossary.py``'s output: edit the catalogue, then run it."""
    written = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    assert written == q.glossary_markdown() + "\n", "run: python scripts/write_glossary.py"
    for entry in q.CATALOGUE.values():
        assert f"## {entry.name}\n" in written


# -- the command line --------------------------------------------------------------------------


def _keys(obj, out: set[str]) -> set[str]:
    if isinstance(obj, dict):
        for key, value in obj.items():
            out.add(key)
            _keys(value, out)
    elif isinstance(obj, list):
        for value in obj:
            _keys(value, out)
    return out


COMMANDS = (
    ["summary"],
    ["rank", "--bootstrap", "20"],
    ["judge"],
    ["anchors"],
    ["ties"],
    ["power", "--edge", "0.05", "--informativeness", "0.5"],
    ["power-detect"],
    ["calibrate", "--candidate", "sim-alder", "--baseline", "sim-birch"],
    ["floor", "--youden", "0.57"],
    ["certify"],
    ["monitor", "--a", "sim-alder", "--b", "sim-birch"],
    ["monitor"],
    [
        "budget",
        "--a",
        "sim-alder",
        "--b",
        "sim-birch",
        "--budget",
        "100",
        "--price-per-call",
        "0.01",
        "--price-per-label",
        "0.5",
    ],
    ["heterogeneity"],
    ["fragility", "--pairs", "adjacent"],
    ["fragility", "--flip"],
)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_every_json_key_is_a_catalogue_key_or_listed(command, small_demo_dir, capsys):
    """Keys stay as they were (scripts read them); each maps to a catalogue id, or is listed as
    structure or as a detail quantity, so a new key cannot slip in unnamed."""
    argv = [command[0]]
    if command[0] not in ("floor", "power"):
        argv.append(str(small_demo_dir / "demo_all_pairs.parquet"))
    code = main([*argv, *command[1:], "--json"])
    assert code in (0, 1), capsys.readouterr().err
    keys = _keys(json.loads(capsys.readouterr().out), set())
    assert unplaced(keys) == set()
    assert set(q.json_key_ids().values()) <= set(q.CATALOGUE)


def placed(key: str, *, listed: frozenset[str] = frozenset()) -> bool:
    """A key or heading a face prints is placed when it is a quantity's name (``q.lookup``), a
    catalogue id or ``--json`` key, a listed structural or detail key (an interval's ``_low`` /
    ``_high`` go with their quantity), or in ``listed``."""
    known = set(q.json_key_ids()) | set(q.CATALOGUE) | q.STRUCTURAL_JSON_KEYS | q.DETAIL_JSON_KEYS
    # a heading the faces put in words ("Rating gap") is placed as its key (rating_gap)
    snake = key.strip().casefold().replace(" ", "_").replace("-", "_")
    base = re.sub(r"_(low|high)$", "", snake)
    folded = {k.casefold() for k in listed}
    return (
        key in known
        or snake in known
        or base in known
        or q.lookup(key) is not None
        or key.casefold() in folded
    )


def unplaced(keys, *, listed: frozenset[str] = frozenset()) -> set[str]:
    """The keys or headings a face prints that the catalogue does not place."""
    return {k for k in keys if k and not placed(k, listed=listed)}


def test_a_planted_unknown_key_or_heading_is_found():
    # a check that silently stopped seeing anything would pass: plant one of each kind
    assert unplaced({"rating", "models", "position_bias_points_low"}) == set()
    assert unplaced({"rating", "mystery_score"}) == {"mystery_score"}
    assert unplaced({"Informativeness", "Model", "Mystery index"}, listed=REPORT_HEADINGS) == {
        "Mystery index"
    }
    assert unplaced(["Model", "Judge only"], listed=REPORT_HEADINGS) == set()


#: Report table headings that name a thing, not a quantity (a row's model or judge, a column of
#: words), or an interval's bound.
STRUCTURAL_HEADINGS = frozenset(
    {
        *("Model", "Judge", "Note", "Higher-ranked model", "Lower-ranked model", "Ranks", "One-sided"),
        *("item", "meaning", "figure", "quantity", "estimate", "95% low", "95% high", "95% interval"),
    }
)
#: Report table headings that show a quantity the catalogue has no entry for yet: a ceiling
#: (catalogue builder work on the faces moves them into the catalogue; none may be added).
UNNAMED_HEADINGS = frozenset(
    {
        "All-pairs rating (Elo points)",
        "Calls",
        "Calls without a verdict",
        "Differing instructions",
        "Higher wins",
        "Human labels only",
        "Judge only",
        "Labelled pairs",
        "P (Holm-adjusted)",
        "P (two-sided sign test)",
        "Planning floor (± percentage points)",
        "Position bias (percentage points)",
        "Prediction-powered",
        "Rating gap (Elo points)",
        "Worth (labelled pairs)",
    }
)
REPORT_HEADINGS = STRUCTURAL_HEADINGS | UNNAMED_HEADINGS


def _report_headings(html: str) -> set[str]:
    cells = re.findall(r"<th\b[^>]*>(.*?)</th>", html, flags=re.S)
    return {unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in cells}


def test_every_report_table_heading_is_placed_by_the_catalogue(tmp_path):
    out = tmp_path / "report.html"
    demo = ROOT / "data" / "demo_all_pairs.parquet"
    assert main(["report", str(demo), "--judge", "sim-judge-steady", "-o", str(out)]) == 0
    headings = _report_headings(out.read_text(encoding="utf-8"))
    assert len(headings) > 20  # the report's tables were found
    assert unplaced(headings, listed=REPORT_HEADINGS) == set(), (
        "a report table heading the catalogue does not know: name it through evalcore/quantities.py"
    )


# -- the pages and the report ------------------------------------------------------------------


@pytest.mark.app
def test_one_id_shows_one_value_across_pages_and_the_report(walk):
    values = _values(walk)
    # the walk reads the quantities it is about (a test that finds nothing proves nothing)
    for qid in (
        "predicted_preference",
        "instructions_needed",
        "tie_rate",
        "informativeness",
        "correction_floor",
    ):
        assert values.get(qid), f"{qid} was not found on the pages"
    conflicts = {
        qid: sorted(where for _, where in shown)
        for qid, shown in values.items()
        if len({number for number, _ in shown}) > 1
    }
    assert conflicts == {}


@pytest.mark.app
def test_every_tile_label_is_a_catalogue_name_and_no_retired_name_is_back(walk):
    unnamed, retired = [], []
    for page, seen in walk.items():
        for label, _, _ in seen["tiles"]:
            if q.lookup(label) is None and label not in STRUCTURAL_LABELS:
                unnamed.append(f"{page}: {label}")
        for heading in [t[0] for t in seen["tiles"]] + seen["headers"]:
            if heading in RETIRED:
                retired.append(f"{page}: {heading}")
    assert unnamed == []
    assert retired == []


@pytest.mark.app
def test_no_heading_chart_title_or_tile_label_carries_detail(walk):
    found = [
        f"{page}: {heading!r}"
        for page, seen in walk.items()
        for heading in seen["headings"]
        if DETAIL_IN_HEADINGS.search(heading)
    ]
    assert found == []
    shown = " ".join(h for seen in walk.values() for h in seen["headings"] + seen["text"])
    assert "quadratic ranking" not in shown.lower()
    # nor does any sentence on a page point into a paper by number (the Methods page, which
    # cites the sources in full, may)
    numbered = re.compile(r"§|\bFig(ure|\.)? ?\d|\b[Tt]ables? \d|\b[Ss]ection \d|\bApp(endix|\.) [A-Z]\b")
    pointers = [
        f"{page}: {found[0]!r} in {text[max(0, found.start() - 60) : found.end() + 20]!r}"
        for page, seen in walk.items()
        if page not in {"pages/methods.py", "report"}
        for text in seen["text"]
        for found in numbered.finditer(text)
    ]
    assert pointers == []


@pytest.mark.app
def test_the_methods_page_shows_the_glossary(walk):
    methods = walk["pages/methods.py"]
    assert "Glossary of reported quantities" in methods["headings"]
    glossary = "\n".join(methods["text"])
    for entry in q.CATALOGUE.values():
        assert f"**{entry.name}**" in glossary, entry.name
    # "see Definitions" points at something on the page
    assert "Definitions (see the glossary of reported quantities at the end of this page)" in glossary


def _cited(target: str, text: list[str]) -> bool:
    """ "see also Hunter (2004)": a citation of a work in the page's own list of references."""
    author = target.removeprefix("also ").split(" ")[0]
    listed = re.compile(rf"^- [^\n]*\b{re.escape(author)}\b", re.M | re.I)
    return bool(author) and any(listed.search(t) for t in text)


@pytest.mark.app
def test_every_see_pointer_on_screen_resolves_to_something_a_user_can_open(walk):
    """ "see Definitions", "see the glossary", "(see **Calibration**)": each names a page of the
    sidebar, the glossary (on the Methods page), or a heading, expander or tab of the same page;
    never a file or a document the app cannot open ("see the data contract")."""
    from types import SimpleNamespace

    from evalcore.present.verdicts import no_text_sentence
    from ui.navigation import NAVIGATION

    pages = {label.casefold() for _, label, _ in NAVIGATION}
    unresolved = []
    # the Verdicts page's sentence for a file without text (the demo has text): "see the data
    # contract" named a document the app cannot open
    walk = {
        **walk,
        "verdicts without text": {
            "text": [no_text_sentence(SimpleNamespace(has_text=False))],
            "headings": [],
            "openers": [],
        },
    }
    for page, seen in walk.items():
        if page == "report":
            continue
        openers = {o.casefold() for o in seen["openers"]}
        for text in seen["text"] + seen["headings"]:
            for found in POINTER.finditer(text):
                target = found[1].replace("*", "").strip().casefold()
                target = re.sub(r"^the ", "", target)
                ok = (
                    "glossary" in target
                    or target.startswith(("below", "above"))
                    or any(re.fullmatch(rf"{re.escape(p)}( page\b.*)?", target) for p in pages)
                    or any(target.startswith(o) or o.startswith(target) for o in openers if o)
                    or _cited(target, seen["text"])
                )
                if not ok:
                    unresolved.append(f"{page}: {found[0]!r}")
    assert unresolved == []


def test_a_json_key_and_its_sheet_row_carry_the_same_unit():
    # The judge sheet writes each figure in one format; the catalogue entry its --json key maps
    # to must be of the same kind, or one name would stand for a count on one face and a share
    # on another (agreement on human wins once mapped to the count of agreeing calls).
    from evalcore.present.judge import SHEET_FIGURES

    ids = q.json_key_ids()
    kinds = {"pct1": {"percent"}, "int": {"count", "int"}}
    checked = 0
    for key, (_heading, fmt) in SHEET_FIGURES.items():
        if key not in ids or fmt not in kinds:
            continue
        entry = q.quantity(ids[key])
        assert entry.fmt in kinds[fmt], f"{key}: sheet writes {fmt}, catalogue {entry.id} is {entry.fmt}"
        checked += 1
    assert checked >= 8


@pytest.mark.app
def test_each_page_prints_a_warning_once(walk):
    # Two sections that each guard the same condition would print the same box twice; a reader
    # skims the second as a new problem.
    for page, seen in walk.items():
        counts: dict[tuple[str, str], int] = defaultdict(int)
        for alert in seen["alerts"]:
            counts[alert] += 1
        twice = {text[:80]: n for (_kind, text), n in counts.items() if n > 1}
        assert not twice, f"{page} prints the same note more than once: {twice}"
    assert sum(len(seen["alerts"]) for seen in walk.values()) >= 5  # the notes were collected


def _markdown_plain(text: str) -> str:
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links keep their words
    text = re.sub(r"[*_`]", "", text)
    return re.sub(r"\s+", " ", text).strip()


@pytest.mark.app
def test_the_report_claims_nothing_the_overview_does_not_show(walk):
    # The report's headline findings and tiles are the Overview's, word for word and number for
    # number: a stakeholder who opens the app after the file sees the same claims.
    html = walk["report"]["html"]
    cards = re.findall(
        r'<div class="finding [^"]*" id="finding-[^"]*"><h3>(.*?)</h3><p>(.*?)</p>', html, re.S
    )
    tiles = re.findall(
        r'<div class="tile"><div class="label">(.*?)</div><div class="value">(.*?)</div>', html, re.S
    )
    assert len(cards) >= 4 and len(tiles) >= 4  # the report's findings were found
    overview = walk["pages/overview.py"]
    shown = _markdown_plain(" ".join(overview["text"]))
    for title, paragraph in cards:
        for claim in (_plain(title), _plain(paragraph)):
            assert _markdown_plain(claim) in shown, (
                f"the report claims what the Overview does not show: {claim!r}"
            )
    overview_tiles = {(label, value) for label, value, _note in overview["tiles"]}
    for label, value in tiles:
        assert (_plain(label), _plain(value)) in overview_tiles, (label, value)
