"""How long the Verdicts page takes to render adversarial user text as safe Markdown.

    python -m benchmarks.bench_text_render [--runs 3] [--sizes 20000,100000,1000000]

For each size and each kind of adversarial text (a stray backtick on one long line, backticks
with ``\\r\\r`` and images between them, brackets, emphasis markers), prints the median time of
the page's ``document()`` (the first 10,000 characters rendered) and of rendering the whole text
(:func:`evalcore.text_markdown.render_document`, linear, a few microseconds per character). The
earlier cleaner (a regular expression for code spans) needed 38 s for 20 KB and 372 s for 100 KB
of such text on the attack's machine.
"""

from __future__ import annotations

import argparse

from benchmarks.timing import median_seconds
from evalcore.present import verdicts as show
from evalcore.text_markdown import _render_cached, render_document


def texts(size: int) -> dict[str, str]:
    """Adversarial texts of about ``size`` characters."""
    return {
        "stray backtick": ("Consider `this " + "a `` b [c] " * size)[:size],
        "backticks and \\r\\r": ("`a\r\r![x](http://evil.example/i.png) `` b " * size)[:size],
        "brackets": ("[" * (size // 2) + "](" * size)[:size],
        "emphasis": ("*a _b " * size)[:size],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="20000,100000,1000000")
    args = parser.parse_args(argv)
    print(f"{'text':<22}{'characters':>12}{'page (preview)':>16}{'whole text':>12}")
    for size in (int(s) for s in args.sizes.split(",")):
        for name, text in texts(size).items():

            def page(text: str = text) -> None:
                _render_cached.cache_clear()  # a first visit, not a cached rerun
                show.document(text)

            preview = median_seconds(page, args.runs)
            whole = median_seconds(lambda text=text: render_document(text), args.runs)
            print(f"{name:<22}{len(text):>12,}{preview:>14.3f} s{whole:>10.2f} s")


if __name__ == "__main__":
    main()
