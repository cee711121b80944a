"""Per-answer features for style control: Markdown counts, the ``feat_`` columns, model families.

**Markdown counts** follow LMArena's style control (Li et al., 2024; the counter of
``arena-hard-auto``'s ``add_markdown_info.py``): fenced code blocks are removed first, then
headers (``#`` … ``######`` followed by a space at the start of a line), bold spans
(``**text**`` or ``__text__`` on one line) and list items (``1.`` or ``-``/``*``/``+`` followed
by a space at the start of a line, after any indentation) are counted. The patterns are RE2
regular expressions, evaluated by the same engine on both paths that use them: Arrow
(:func:`markdown_counts`, vectorised over an array of answers) and DuckDB (the store, when the
table holds the answers' text), so the two paths count identically.

**``feat_`` columns** (``docs/data-contract.md``): a verdict table may carry numeric per-answer
features as column pairs ``feat_<name>_a`` / ``feat_<name>_b`` (a count or size ≥ 0 of the answer
in slot A and slot B). ``feat_headers_*``, ``feat_bold_*`` and ``feat_lists_*`` supply the
Markdown control when the text is absent; any other pair becomes a covariate called ``<name>``.

**Families** are recognised from the model name (:func:`family_of`): the part after the last
``/`` is lower-cased and matched against known name prefixes (``gpt-``, ``claude``, ``gemini``,
``llama`` …), then the organisation before the ``/`` (``openai/…``, ``meta-llama/…``); a
``families`` mapping (exact names → family) overrides both.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

#: Fenced code blocks, removed before counting (headers or lists inside code are not style).
CODE_BLOCK = r"```[^`]*```"
#: Markdown element → RE2 patterns whose non-overlapping matches are summed.
MARKDOWN_PATTERNS: dict[str, tuple[str, ...]] = {
    "headers": (r"(?m)^#{1,6}\s",),
    "bold": (r"\*\*[^*\n]+\*\*", r"__[^_\n]+__"),
    "lists": (r"(?m)^\s*\d+\.\s", r"(?m)^\s*[-*+]\s"),
}
MARKDOWN_ELEMENTS: tuple[str, ...] = tuple(MARKDOWN_PATTERNS)

FEATURE_PREFIX = "feat_"
_FEATURE_COLUMN = re.compile(r"^feat_([a-z0-9]+(?:_[a-z0-9]+)*)_([ab])$")

#: (name prefix, family), tried in order on the lower-cased name after the last "/".
FAMILY_PREFIXES: tuple[tuple[str, str], ...] = (
    ("gpt-", "openai"),
    ("gpt4", "openai"),
    ("chatgpt", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("text-davinci", "openai"),
    ("claude", "anthropic"),
    ("gemini", "google"),
    ("gemma", "google"),
    ("palm", "google"),
    ("bard", "google"),
    ("llama", "meta"),
    ("meta-llama", "meta"),
    ("codellama", "meta"),
    ("mistral", "mistral"),
    ("mixtral", "mistral"),
    ("codestral", "mistral"),
    ("ministral", "mistral"),
    ("qwen", "alibaba"),
    ("qwq", "alibaba"),
    ("deepseek", "deepseek"),
    ("command", "cohere"),
    ("c4ai", "cohere"),
    ("aya", "cohere"),
    ("grok", "xai"),
    ("phi-", "microsoft"),
    ("wizardlm", "microsoft"),
    ("yi-", "01-ai"),
    ("glm", "zhipu"),
    ("chatglm", "zhipu"),
    ("vicuna", "lmsys"),
    ("nemotron", "nvidia"),
    ("jamba", "ai21"),
    ("reka", "reka"),
    ("dbrx", "databricks"),
    ("olmo", "allenai"),
    ("tulu", "allenai"),
)
#: Organisation (the part before "/") → family.
FAMILY_ORGS: dict[str, str] = {
    "openai": "openai",
    "anthropic": "anthropic",
    "google": "google",
    "meta-llama": "meta",
    "meta": "meta",
    "facebook": "meta",
    "mistralai": "mistral",
    "qwen": "alibaba",
    "alibaba": "alibaba",
    "deepseek-ai": "deepseek",
    "cohereforai": "cohere",
    "cohere": "cohere",
    "x-ai": "xai",
    "microsoft": "microsoft",
    "01-ai": "01-ai",
    "thudm": "zhipu",
    "lmsys": "lmsys",
    "nvidia": "nvidia",
    "allenai": "allenai",
}


@dataclass(frozen=True, repr=False)
class StyleRows:
    """Judge calls with their per-answer features, aggregated by the store (arrays, no text).

    Row ``r``: ``n[r]`` calls on instruction ``inst[r]`` with ``models[a[r]]`` in slot A and
    ``models[b[r]]`` in slot B, judged by ``judges[judge[r]]``, with slot A's score ``y[r]``
    (1 win, ½ tie, 0 loss) and features ``feature_a[name][r]`` / ``feature_b[name][r]``.
    ``sources`` says where each feature came from; ``dropped`` how many calls were left out
    because a requested feature was missing in the row.
    """

    models: tuple[str, ...]
    judges: tuple[str, ...]
    n_instructions: int
    inst: np.ndarray
    a: np.ndarray
    b: np.ndarray
    judge: np.ndarray
    y: np.ndarray
    n: np.ndarray
    feature_a: dict[str, np.ndarray]
    feature_b: dict[str, np.ndarray]
    sources: dict[str, str]
    dropped: int = 0

    @property
    def calls(self) -> int:
        return int(self.n.sum())

    def __repr__(self) -> str:
        return (
            f"StyleRows({len(self.models)} models, {self.n_instructions:,} instructions, "
            f"{self.a.size:,} rows, features {sorted(self.feature_a)})"
        )


def markdown_counts(texts: Iterable[str | None]) -> dict[str, np.ndarray]:
    """Count headers, bold spans and list items in each answer, vectorised (Arrow's RE2).

    Parameters
    ----------
    texts : array-like of str or None
        Answers; a missing answer gives NaN counts.

    Returns
    -------
    dict
        ``{"headers": …, "bold": …, "lists": …}``, float arrays aligned with ``texts``.

    References
    ----------
    Li, T., Angelopoulos, A. N. & Chiang, W.-L. (2024). Does style matter? Disentangling style
    and substance in Chatbot Arena. LMSYS blog, 29 August 2024.

    Examples
    --------
    >>> c = markdown_counts(["# Plan\\n- **one**\\n- two", "plain", "```\\n# code\\n```"])
    >>> {k: v.tolist() for k, v in c.items()}
    {'headers': [1.0, 0.0, 0.0], 'bold': [1.0, 0.0, 0.0], 'lists': [2.0, 0.0, 0.0]}
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = texts if isinstance(texts, pa.Array | pa.ChunkedArray) else pa.array(list(texts), type=pa.string())
    clean = pc.replace_substring_regex(arr, pattern=CODE_BLOCK, replacement="")
    out = {}
    for name, patterns in MARKDOWN_PATTERNS.items():
        total = np.zeros(len(arr))
        for pattern in patterns:
            got = pc.count_substring_regex(clean, pattern=pattern)
            total = total + np.asarray(got.to_numpy(zero_copy_only=False), dtype=np.float64)
        out[name] = total
    return out


def normalised_difference(count_a: np.ndarray, count_b: np.ndarray) -> np.ndarray:
    """(a − b)/(a + b) per call, 0 where both are 0: LMArena's style feature before
    standardisation (a relative difference in [−1, 1], blind to the absolute size).

    Examples
    --------
    >>> normalised_difference(np.array([300.0, 0.0, 2.0]), np.array([100.0, 0.0, 0.0])).tolist()
    [0.5, 0.0, 1.0]
    """
    a = np.asarray(count_a, dtype=np.float64)
    b = np.asarray(count_b, dtype=np.float64)
    total = a + b
    return np.divide(a - b, total, out=np.zeros_like(total), where=total != 0)


def feature_pairs(columns: Iterable[str]) -> tuple[str, ...]:
    """Names ``<name>`` with both ``feat_<name>_a`` and ``feat_<name>_b`` among ``columns``.

    Examples
    --------
    >>> feature_pairs(["model_a", "feat_bold_a", "feat_bold_b", "feat_tone_a"])
    ('bold',)
    """
    sides: dict[str, set[str]] = {}
    for column in columns:
        match = _FEATURE_COLUMN.match(str(column).lower())
        if match:
            sides.setdefault(match.group(1), set()).add(match.group(2))
    return tuple(sorted(name for name, got in sides.items() if got == {"a", "b"}))


def feature_columns(columns: Iterable[str]) -> tuple[str, ...]:
    """Every column of ``columns`` named like a per-answer feature (``feat_<name>_a|b``)."""
    return tuple(str(c).lower() for c in columns if _FEATURE_COLUMN.match(str(c).lower()))


def spelled_feature_columns(columns: Iterable[object]) -> list[str]:
    """The per-answer ``feat_<name>_a|b`` columns among ``columns`` (names, or DESCRIBE rows whose
    first field is the name), exactly as spelled: the pattern admits only lower-case letters,
    digits and underscores, so a column selected by it can be selected by its own name."""
    names = [c[0] if isinstance(c, tuple) else c for c in columns]
    return [str(c) for c in names if _FEATURE_COLUMN.match(str(c))]


def family_of(name: str, families: Mapping[str, str] | None = None) -> str | None:
    """The family of a model or judge name, or None when it is not recognised.

    Examples
    --------
    >>> family_of("gpt-4o-2024-05-13"), family_of("meta-llama/Llama-3-70b"), family_of("sim-oak")
    ('openai', 'meta', None)
    >>> family_of("sim-oak", {"sim-oak": "trees"})
    'trees'
    """
    if families and name in families:
        return families[name]
    lowered = str(name).strip().lower()
    org, _, base = lowered.rpartition("/")
    for prefix, family in FAMILY_PREFIXES:
        if base.startswith(prefix):
            return family
    return FAMILY_ORGS.get(org.rsplit("/", 1)[-1]) if org else None
