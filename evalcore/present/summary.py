"""What the Data page says about a loaded table and the saved datasets, in safe Markdown (names
shown as code with :func:`evalcore.text.code_span`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pandas as pd

from evalcore import quantities
from evalcore.present.display import catalogue_table
from evalcore.text import code_span, fmt_int
from evalcore.text import markdown as md

if TYPE_CHECKING:
    from evalcore.findings import Finding
    from evalcore.store.store import DatasetSummary
    from evalcore.store.workspace import SavedDataset
    from evalcore.ties.both_bad import BothBadShare


def design_markdown(summary: DatasetSummary) -> str:
    """The bullet list under "Loaded": design, orders, judges, categories, self-comparisons."""
    design = summary.design + (
        f" — every model against {code_span(summary.anchor)}" if summary.anchor else ""
    )
    lines = [
        f"- **Design:** {md(design) if not summary.anchor else design} ({fmt_int(summary.pairs_judged)} of "
        f"{fmt_int(summary.pairs_possible)} model pairs judged)",
        f"- **Orders:** {md(summary.orders)}",
        "- **Judges:** " + ", ".join(code_span(j) for j in summary.judges),
    ]
    if summary.categories:
        lines.append("- **Categories:** " + ", ".join(code_span(c) for c in summary.categories))
    if summary.self_comparison_rows:
        lines.append(f"- **Self-comparisons:** {fmt_int(summary.self_comparison_rows)} rows (kept apart)")
    return "\n".join(lines)


def even_coverage_sentence(summary: DatasetSummary) -> str | None:
    """A sentence instead of the coverage map when the map would be one even colour: every pair
    of models judged, each the same number of times (None otherwise: the map shows where the
    evidence is). On the demo: every one of the 190 pairs of the 20 models has 1,800 calls.

    Examples
    --------
    >>> import pandas as pd
    >>> from types import SimpleNamespace
    >>> cov = pd.DataFrame({"model_a": ["x", "y"], "model_b": ["y", "x"], "calls": [6, 6]})
    >>> even_coverage_sentence(SimpleNamespace(models=("x", "y"), pair_coverage=cov, pairs_possible=1))
    'Every one of the 1 pairs of the 2 models was judged equally often: 6 calls per pair (either slot order, every judge), so a map of calls per pair would be one even colour.'
    """
    cov = summary.pair_coverage
    off = cov[cov["model_a"] != cov["model_b"]] if len(cov) else cov
    judged = len(off) // 2
    if not len(off) or judged != summary.pairs_possible or off["calls"].nunique() != 1:
        return None
    calls = int(off["calls"].iloc[0])
    return (
        f"Every one of the {fmt_int(judged)} pairs of the {fmt_int(len(summary.models))} models was "
        f"judged equally often: {fmt_int(calls)} calls per pair (either slot order, every judge), so "
        "a map of calls per pair would be one even colour."
    )


def both_bad_markdown(share: BothBadShare) -> str:
    """The Data page's line on ties marked both bad."""
    return "**Both bad, kept apart from tie:** " + share.sentence()


def no_verdict_table(summary: DatasetSummary) -> pd.DataFrame:
    """Calls with no verdict per judge, with human column names and percentages."""
    return catalogue_table(
        summary.no_verdict,
        [
            ("judge", "Judge", "text"),
            ("calls", "Calls", None),
            ("no_verdict", "Calls without a verdict", None),
            "no_verdict_rate",
        ],
    )


def load_error(error: str, *, previous: str | None) -> str:
    """Why a file was not loaded, and what is still loaded."""
    kept = f" The data loaded before ({code_span(previous)}) is still loaded." if previous else ""
    return f"**This file was not loaded.** {md(str(error).rstrip('.'))}.{kept}"


def saved_message(saved: SavedDataset) -> str:
    """What a save did, naming the version it replaced (kept, restorable)."""
    text = f"Saved as {code_span(saved.name)} (version {saved.version}, {fmt_int(saved.rows)} rows)."
    if saved.replaced is not None:
        text += (
            f" It replaced {md(saved.replaced.describe())}, which is kept: restore it under "
            "“Previous versions”."
        )
    return text


def version_label(saved: SavedDataset) -> str:
    """A plain-text label for a version in a picker (shown as text, not Markdown)."""
    return saved.describe()


def saved_table(listed: pd.DataFrame) -> pd.DataFrame:
    """The saved datasets with human column names."""
    return listed.rename(columns=lambda c: "Saved (UTC)" if c == "saved_at" else c.capitalize())


def workspace_note(path: object) -> str:
    """Where saved datasets live and how a link opens one (Markdown; the path is escaped)."""
    return (
        f"Saved datasets live in the workspace file {code_span(path)} on this server and stay "
        "after a restart; replacing one keeps the old version. A link ending in "
        "`?dataset=<name>` opens one."
    )


def default_save_name(saved: str | None, source: str | None) -> str:
    """The name a save proposes: the saved dataset's own, else the file's name without endings.

    Examples
    --------
    >>> default_save_name(None, "runs.csv.gz"), default_save_name("mine", "x.csv")
    ('runs', 'mine')
    """
    return saved or (source or "data").split(".")[0]


def listed_version(listed: pd.DataFrame, name: str) -> int:
    """The current version of ``name`` in the workspace's table of saved datasets."""
    return int(listed.loc[listed["name"] == name, "version"].iloc[0])


def metric_cells(summary: DatasetSummary) -> list[tuple[str, str]]:
    """The five counts at the top of the summary: (label, value)."""
    return [
        ("Models", fmt_int(len(summary.models))),
        ("Instructions", fmt_int(summary.instructions)),
        ("Judges", fmt_int(len(summary.judges))),
        (quantities.name("calls"), quantities.format("calls", summary.rows)),
        (quantities.name("labelled_calls"), quantities.format("labelled_calls", summary.labelled_rows)),
    ]


def unreadable(file: str, exc: BaseException) -> str:
    """Words for an error no reader foresaw (plain text; escaped where shown)."""
    return (
        f"{file}: the file could not be read ({type(exc).__name__}: {exc}). Check that it is a "
        "verdict table or a supported tool's output"
    )


# -- the page's own words (no user text) ---------------------------------------------------------

INTRO = (
    "Rank models from LLM-judge verdicts **with honest intervals**, choose the anchor every model "
    "is compared against, check the judge's position bias and ties, plan how many prompts and "
    "human labels a decision needs, and correct a judge's win rate against human labels."
)
DEMO_NOTE = (
    "The demos are **simulated** by Verdict Lab's simulator: every model and judge is made up "
    "(`sim-…`), with a known true ranking."
)
UPLOAD_LABEL = (
    "Verdict table or counts table: CSV, CSV.gz, Parquet, JSON Lines, or a native "
    "Arena-Hard-Auto, AlpacaEval, MT-Bench or Chatbot Arena file"
)
UPLOAD_TYPES = ["csv", "gz", "tsv", "parquet", "pq", "jsonl", "ndjson", "json"]
COLUMNS_NOTE = (
    "Required columns: `instruction_id, model_a, model_b, verdict` (−2..+2 from slot A's point "
    "of view, or labels such as `A>B`, `[[A]]`, `model_a`); optional `judge, human, length_a, "
    "length_b, category`, and the text the Verdicts page shows: `prompt, response_a, response_b, "
    "judge_output`. A counts table (calls counted where they live) adds `n_calls`, the "
    "calls each row stands for, and optional sums such as `length_a_sum`."
)
DATA_FOLDER_HELP = (
    "Files the server's operator placed in its data folder, for tables above the upload limit; a "
    "name ending in / is a folder of Parquet files, counted as one table."
)
RANKING_TYPES = ["csv", "parquet", "json", "jsonl"]
VERSIONS_HELP = (
    "Replacing a saved dataset keeps the old version; restoring one makes it current again "
    "(the current one is kept too)."
)
ANCHOR_NOTE = (
    "An anchor-only table ranks every model by its battles against one anchor; the per-anchor "
    "sweep of the Anchors page needs all pairs."
)


def overview_sentence(summary: DatasetSummary, judge: str, counts=None) -> str:
    """The Overview's one-line description of the data (safe Markdown).

    With the judge's ``counts`` (:class:`~evalcore.counts.VerdictCounts`), it also says how many
    models and instructions the judge's verdicts cover when that differs from the file's totals
    (rows with no verdict or self-comparisons are not evidence): the numbers every analysis of
    the judge uses, the Power page's "Instructions N" among them.
    """
    text = (
        f"**{md(summary.name)}**: {fmt_int(len(summary.models))} models, "
        f"{fmt_int(summary.instructions)} instructions, {fmt_int(summary.rows)} judge calls "
        f"({md(summary.design)}, {md(summary.orders)}); findings for judge **{md(judge)}**"
    )
    if counts is not None and (
        counts.n_instructions != summary.instructions or counts.n_models != len(summary.models)
    ):
        text += (
            f", whose verdicts cover {fmt_int(counts.n_models)} models on "
            f"{fmt_int(counts.n_instructions)} instructions"
        )
    return text + "."


def file_stem(*parts: object) -> str:
    """A download file name from user names: letters, digits, ``.``, ``_`` and ``-`` only.

    Examples
    --------
    >>> file_stem("my data.csv", "gpt/4 <judge>")
    'my_data.csv_gpt_4_judge'
    """
    clean = (re.sub(r"[^A-Za-z0-9._-]+", "_", str(p)).strip("_") for p in parts)
    return "_".join(c for c in clean if c) or "data"


#: The Overview's icon of each finding's status.
STATUS_ICON = {
    "clear": ":material/check_circle:",
    "caution": ":material/warning:",
    "unavailable": ":material/block:",
}
COMPARE_HELP = (
    "Adds the spec sheet of every judge of the file to the HTML report (a second or two per "
    "judge the first time)."
)
FINDINGS_NOTE = (
    "The headline findings for the judge chosen here, computed by the same functions as the "
    "detail pages (each finding links to its page). Results are kept for this session, so a "
    "second visit is instant."
)
REPORT_NOTE = (
    "One self-contained HTML file with the findings above, the data summary, the leaderboard, the "
    "anchor analysis, the judge sheet, the power and calibration results. It opens offline in any "
    "browser (plotly.js is inside the file), its plots stay interactive, and each plot's camera "
    "button saves it as a PNG."
)


def finding_markdown(finding: Finding) -> tuple[str, str, str]:
    r"""A finding as the Overview shows it: (heading, paragraph, definition line or "") in
    Markdown, with the finding's own text escaped (it names models).

    Examples
    --------
    >>> from evalcore.findings import Finding
    >>> f = Finding("leader", "Leader", (), "m_1 leads", "", "leaderboard", "clear", {})
    >>> heading, paragraph, definition = finding_markdown(f)
    >>> print(heading, paragraph, sep="\n")
    #### :material/check_circle: Leader
    m\_1 leads
    """
    definition = "Definition: " + md(finding.definition) if finding.definition else ""
    return f"#### {STATUS_ICON[finding.status]} {md(finding.title)}", md(finding.text), definition


def finding_cost(finding: Finding, analyses, *, per_call: float | None, per_label: float | None) -> str:
    """The size a finding asks to collect, in judge calls and money at the prices given ("" when
    it asks for none or no price is given): the recommended anchor's instructions needed (each of
    the other models against it: one less than the models, judge calls per instruction), or the
    instructions that would separate the top two (two calls per instruction against an anchor,
    one head-to-head)."""
    from evalcore.power.budget import calls_per_instruction, cost_text

    numbers, m = finding.numbers, analyses.counts.n_models
    if finding.key == "anchor" and m >= 2:
        size, per = numbers.get("recommended_instructions_needed"), calls_per_instruction(m, design="anchor")
    elif finding.key == "separation" and not numbers.get("separated", True):
        edges = analyses.edges
        against = (
            edges is not None and edges.anchor and edges.anchor not in (numbers["upper"], numbers["lower"])
        )
        size, per = numbers.get("instructions_needed"), (2 if against else 1)
    else:
        return ""
    if size is None:
        return ""
    text = cost_text(float(size), per_instruction=per, per_call=per_call, per_label=per_label)
    return f"In money: {text}." if text else ""
