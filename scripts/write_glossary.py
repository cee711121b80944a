"""Write docs/glossary.md from the catalogue of reported quantities (evalcore/quantities.py).

Run after editing the catalogue: ``python scripts/write_glossary.py``. A test fails when the file
differs from what the catalogue generates, so the glossary cannot drift from the app."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalcore.quantities import glossary_markdown  # noqa: E402

if __name__ == "__main__":
    target = ROOT / "docs" / "glossary.md"
    target.write_text(glossary_markdown() + "\n", encoding="utf-8")
    print(f"wrote {target}")
