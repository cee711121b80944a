"""Draw the app's favicon, a pair of scales, into ``data/favicon.png`` (run from the repo root).

    python data/make_favicon.py

The icon is a local file so that the browser never fetches one from a font server: a Material
icon as ``page_icon`` makes Streamlit point the favicon at fonts.gstatic.com, which an offline
machine cannot reach. Pillow comes with Streamlit.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path(__file__).resolve().parent / "favicon.png"
SIZE = 64
INK = (49, 51, 63, 255)  # Streamlit's dark text colour: readable on light and dark tabs
ACCENT = (255, 75, 75, 255)  # Streamlit's primary red


def draw(size: int = SIZE) -> Image.Image:
    """The scales at ``size`` × ``size`` pixels (drawn 4× larger, then downsampled smoothly)."""
    big = size * 4
    u = big / 64  # drawing unit: coordinates below are on a 64-unit grid
    img = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    w = round(3.5 * u)
    d.line([(32 * u, 10 * u), (32 * u, 54 * u)], fill=INK, width=w)  # post
    d.line([(18 * u, 56 * u), (46 * u, 56 * u)], fill=INK, width=w)  # foot
    d.line([(8 * u, 16 * u), (56 * u, 16 * u)], fill=INK, width=w)  # beam
    d.ellipse([(28 * u, 6 * u), (36 * u, 14 * u)], fill=ACCENT)  # pivot
    for x in (12, 52):  # strings and pans
        d.line([(x * u, 16 * u), ((x - 8) * u, 36 * u)], fill=INK, width=round(2 * u))
        d.line([(x * u, 16 * u), ((x + 8) * u, 36 * u)], fill=INK, width=round(2 * u))
        d.chord([((x - 11) * u, 28 * u), ((x + 11) * u, 44 * u)], 0, 180, fill=ACCENT)
    return img.resize((size, size), Image.Resampling.LANCZOS)


def main() -> None:
    draw().save(OUT, optimize=True)
    print(f"{OUT.name}: {OUT.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
