"""The methods and references of ``docs/methods.md``, read at run time for the app's Methods page.

The file bundled with the repository is the one source: the page shows its sections and its
reference list (authors, year, title, where published) without a copy in code, and works offline.
Links are shown as their words (the app cannot open the other documentation files, and a page
shows no live link it did not write itself).

The document speaks to two readers. Passages for developers only (where the code lives, how to
call it from Python, the benchmark scripts that print the timings, the maths in symbols) sit between the
HTML comments ``<!-- for developers -->`` and ``<!-- /for developers -->``: invisible on GitHub's
rendering, kept in the documentation, and left out of the page, which speaks to a stakeholder in
plain words (:data:`DEVELOPERS`). Any other HTML comment is dropped from the page too.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path

#: docs/methods.md in the repository (the app's working copy).
METHODS_FILE = Path(__file__).resolve().parents[2] / "docs" / "methods.md"

_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
#: A passage for developers only: from ``<!-- for developers -->`` to ``<!-- /for developers -->``
#: (inline or over whole paragraphs; the page drops it with its markers).
DEVELOPERS = re.compile(r"<!--\s*for developers\s*-->.*?<!--\s*/for developers\s*-->", re.DOTALL)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)

#: "Authors (year). Title. *Venue* …" — the year may carry a letter or be "n.d.".
_REFERENCE = re.compile(r"^(?P<authors>.+?)\s\((?P<year>\d{4}[a-z]?|n\.d\.)\)\.\s(?P<rest>.+)$")


@dataclass(frozen=True)
class Reference:
    """One entry of the reference list."""

    authors: str
    year: str
    title: str
    published: str

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class MethodSection:
    """One method section: its heading, its anchor (``slug``) and its Markdown body."""

    title: str
    slug: str
    body: str


@dataclass(frozen=True)
class MethodsDoc:
    """The intro, the method sections and the references of the methods document."""

    intro: str
    sections: tuple[MethodSection, ...]
    references: tuple[Reference, ...]

    def section(self, slug_or_title: str) -> MethodSection | None:
        """The section with this anchor or title, or None."""
        key = slug(slug_or_title)
        return next((s for s in self.sections if s.slug == key), None)


def slug(title: str) -> str:
    """A heading's anchor as GitHub writes it: lower case, punctuation dropped, spaces to dashes.

    Examples
    --------
    >>> slug("Ranking: Bradley–Terry on the Elo scale")
    'ranking-bradleyterry-on-the-elo-scale'
    >>> slug("The judge's spec sheet")
    'the-judges-spec-sheet'
    """
    text = re.sub(r"[^\w\s-]", "", title.strip().lower())
    return re.sub(r"\s", "-", text)


#: Documentation pages whose content the Methods page shows itself (its glossary at the end).
_ON_THIS_PAGE = frozenset({"definitions", "glossary"})


def _plain_links(text: str) -> str:
    """Every link becomes its words (a web address follows in brackets): the app cannot open the
    other documentation files, and a page shows no live link it did not write itself."""

    def one(match: re.Match) -> str:
        words, target = match[1], match[2]
        if re.match(r"https?://", target):
            return f"{words} ({re.sub(r'^https?://', '', target)})"
        if target.split("#")[0].removesuffix(".md") in _ON_THIS_PAGE:
            # the docs' definitions and glossary pages: this page shows the glossary at its end
            return f"{words} (see the glossary of reported quantities at the end of this page)"
        return words

    return _LINK.sub(one, text)


def _reference(entry: str) -> Reference:
    text = " ".join(entry.split())
    found = _REFERENCE.match(text)
    if found is None:
        return Reference(authors=text, year="", title="", published="")
    rest = found["rest"]
    # A book's title is in italics; an article's title runs to its italic venue (a title may hold
    # ". ", as in "designs: I. The method"), else to the first ". ".
    if rest.startswith("*"):
        end = rest.find("*", 1)
        title, published = rest[1:end], rest[end + 1 :].lstrip(". ")
    elif "*" in rest:
        start = rest.index("*")
        title, published = rest[:start], rest[start:]
    else:
        cut = re.search(r"[.?!]\s", rest)
        title, published = (rest[: cut.start() + 1], rest[cut.end() :]) if cut else (rest, "")
    return Reference(
        authors=found["authors"].strip(),
        year=found["year"],
        title=title.strip().rstrip("."),
        published=published.replace("*", "").strip().rstrip("."),
    )


def for_stakeholders(text: str) -> str:
    """The text without its passages for developers (:data:`DEVELOPERS`) and other HTML comments,
    with the blank lines they leave behind closed up.

    Examples
    --------
    >>> for_stakeholders("The fit is quick.<!-- for developers --> See `fit.py`.<!-- /for developers -->")
    'The fit is quick.'
    >>> for_stakeholders("A.\\n\\n<!-- for developers -->\\nCode.\\n<!-- /for developers -->\\n\\nB.")
    'A.\\n\\nB.'
    """
    text = _COMMENT.sub("", DEVELOPERS.sub("", text))
    text = re.sub(r"[ \t]+$", "", text, flags=re.MULTILINE)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def parse_methods(text: str) -> MethodsDoc:
    """Split the methods document into its intro, its ``##`` sections and its reference list.

    Examples
    --------
    >>> doc = parse_methods(
    ...     "# Methods\\n\\nIntro.\\n\\n## Ranking\\n\\nBody, see [Data](data-contract.md).\\n\\n"
    ...     "## References\\n\\n- Elo, A. E. (1978). *The Rating of Chessplayers*. Arco.\\n"
    ... )
    >>> doc.sections[0].body
    'Body, see Data.'
    >>> doc.references[0].authors, doc.references[0].year, doc.references[0].title
    ('Elo, A. E.', '1978', 'The Rating of Chessplayers')
    """
    text = for_stakeholders(text)  # the page speaks to a stakeholder: no passage for developers
    parts = re.split(r"^## +(.+)$", text, flags=re.MULTILINE)
    head = re.sub(r"^# .*$", "", parts[0], flags=re.MULTILINE)
    # the intro's own table of contents repeats the sections: keep the prose only
    intro = "\n".join(line for line in head.strip().splitlines() if not line.startswith("- ["))
    sections, references = [], []
    for title, body in zip(parts[1::2], parts[2::2], strict=True):
        title = title.strip()
        if title.lower() == "references":
            entries = re.split(r"^- ", body.strip(), flags=re.MULTILINE)
            references = [_reference(e) for e in entries if e.strip()]
            continue
        sections.append(MethodSection(title=title, slug=slug(title), body=_plain_links(body.strip())))
    return MethodsDoc(
        intro=_plain_links(intro.strip()), sections=tuple(sections), references=tuple(references)
    )


def read_methods(path: str | Path | None = None) -> MethodsDoc:
    """:func:`parse_methods` of the bundled ``docs/methods.md`` (or ``path``)."""
    return parse_methods(Path(path or METHODS_FILE).read_text(encoding="utf-8"))
