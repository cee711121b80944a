"""List every quantity of the catalogue with the pages of the demo (and the report) that show it.

Run from the checkout: ``python scripts/catalogue_pages.py`` (a minute or two: it opens every page
of the bundled demo as a new visitor does, with Streamlit's test harness, and writes the HTML
report the command line writes). A quantity counts as shown on a page when a tile label or a table
heading is its catalogue name, when a sentence or a tile note states its number (the patterns of
``tests/test_catalogue.py``), or when its name appears in the page's text. The Methods page shows
every name in its glossary and is listed apart. ``--markdown`` prints a Markdown table.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalcore import quantities as q  # noqa: E402
from tests.conftest import new_app  # noqa: E402
from tests.test_catalogue import NOTES, PAGES, SENTENCES, _clean, _plain, _report_html  # noqa: E402
from ui.navigation import NAVIGATION  # noqa: E402

LABELS = {file: label for file, label, _ in NAVIGATION}


def walk() -> dict[str, dict[str, list[str]]]:
    """What each page of the demo shows (defaults untouched), and the report's text."""
    at = new_app(timeout=900)
    at.run()
    seen: dict[str, dict[str, list[str]]] = {}
    for page in PAGES:
        if page != "app.py":
            at.switch_page(page).run()
        if at.exception:
            raise SystemExit(f"{page}: {[e.value for e in at.exception]}")
        seen[LABELS.get(page, page)] = {
            "labels": [_clean(m.label) for m in at.metric]
            + [str(c) for d in at.dataframe for c in d.value.columns],
            "notes": [_clean(m.proto.delta) for m in at.metric],
            "text": [
                _clean(e.value)
                for kind in (
                    "markdown",
                    "caption",
                    "info",
                    "warning",
                    "success",
                    "error",
                    "title",
                    "header",
                    "subheader",
                )
                for e in getattr(at, kind)
            ],
        }
    with tempfile.TemporaryDirectory() as folder, contextlib.redirect_stdout(io.StringIO()):
        seen["HTML report"] = {"labels": [], "notes": [], "text": [_plain(_report_html(Path(folder)))]}
    return seen


def shown_on(seen: dict[str, dict[str, list[str]]]) -> dict[str, list[str]]:
    """Catalogue id → the pages (in walk order) that show it; the Methods page left out."""
    where: dict[str, list[str]] = defaultdict(list)
    for page, parts in seen.items():
        if page == LABELS["pages/methods.py"]:
            continue
        text = "\n".join(parts["text"])
        found = {q.lookup(label) for label in parts["labels"]} - {None}
        found |= {qid for qid, pattern in SENTENCES.items() if re.search(pattern, text)}
        found |= {qid for qid, pattern in NOTES.items() if any(re.search(pattern, n) for n in parts["notes"])}
        found |= {e.id for e in q.CATALOGUE.values() if re.search(rf"\b{re.escape(e.name)}\b", text)}
        for qid in found:
            where[str(qid)].append(page)
    return where


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    where = shown_on(walk())
    rows = [(e.id, e.name, ", ".join(where.get(e.id, [])) or "(glossary only)") for e in q.CATALOGUE.values()]
    if args.markdown:
        print("| Id | Name | Shown on |\n|---|---|---|")
        print("\n".join(f"| `{i}` | {n} | {p} |" for i, n, p in rows))
    else:
        width = max(len(i) for i, _, _ in rows)
        print("\n".join(f"{i:<{width}}  {n} — {p}" for i, n, p in rows))
    shown = sum(1 for _, _, p in rows if p != "(glossary only)")
    print(f"\n{len(rows):,} quantities in the catalogue; {shown:,} shown on a page or in the report of the "
          "demo (defaults untouched); every one is in the Methods page's glossary.")  # fmt: skip


if __name__ == "__main__":
    main()
