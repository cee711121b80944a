"""Glue the two anchor pages share (Anchors; Anchor planning): the controls at the top, the human
ranking box, the per-anchor sweep every section reads, the chosen anchor, run-on-click sections
the planner's inputs, and the Anchors page's result sections (the explorer, the stability of the
recommendation, the anchor effect beside the judge effect), one result each. Widget keys and URL parameters are those the single Anchors page had,
so shared links (``/anchors?judge=…&anchor=…``) keep working. No statistics here: every number
and sentence comes from :mod:`evalcore.anchors` and its presentation module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import pandas as pd
import streamlit as st

import ui as _ui
from evalcore import anchors as an
from evalcore.anchors.tau import AnchorSweep
from evalcore.counts import VerdictCounts
from evalcore.errors import DesignError, UsageError
from evalcore.findings import ranking_key
from evalcore.ingest.files import read_human_ranking
from evalcore.ingest.reference import MIN_OVERLAP, paper_human_ranking, ranking_overlap
from evalcore.present import anchors as av
from evalcore.present.display import shorten_cells
from evalcore.schema import VerdictFormatError
from evalcore.store.store import VerdictStore
from ui.status import stop


@dataclass(frozen=True)
class AnchorView:
    """What both pages read after the controls: the selection, its counts, sweep and anchor."""

    store: VerdictStore
    judge: str
    category: str | None
    tau: str
    both: bool
    human: pd.DataFrame | None
    hkey: Any
    counts: VerdictCounts
    sweep: AnchorSweep
    anchors: list[str]
    chosen: str


def run_on_click(name: str, key: tuple, button: str, compute: Callable, *, help: str | None = None):
    """Compute only when the button is pressed; show the last result for the same inputs."""
    slot, version = f"anchors_last_{name}", _ui.state()["version"]
    if st.button(button, key=f"anchors_btn_{name}", help=help):
        st.session_state.pop(slot, None)  # until this computation succeeds
        try:
            with _ui.progress_bar("Starting…") as progress:
                _ui.memo(key, lambda: compute(progress))
            st.session_state[slot] = (version, key)
        except DesignError as exc:  # the design does not identify it: say so, not an error
            _ui.info(exc)
        except ValueError as exc:
            _ui.error(exc)
    return _ui.memo(key, lambda: None) if st.session_state.get(slot) == (version, key) else None


def captions(*lines: str | None) -> None:
    """The app's own captions (no user text), skipping the ones that do not apply."""
    for line in filter(None, lines):
        st.caption(line)


def _paper_ranking() -> pd.DataFrame | None:
    try:
        return _ui.memo(("paper_human_ranking",), paper_human_ranking)
    except UsageError:  # a copy without the repository's data folder: only uploads
        return None


def human_ranking_box(store: VerdictStore) -> pd.DataFrame | None:
    """The human ranking: uploaded (model, score), or the anchor paper's when the table names
    enough of its models; shown with a download. Returns the ranking in use."""
    s = _ui.state()
    label = "Human ranking (model, score; higher is better)"
    with st.expander(label, expanded=s.get("human_ranking") is None):
        paper = _paper_ranking()
        matched = ranking_overlap(_ui.memo(("models",), store.models), paper) if paper is not None else 0
        if paper is not None and matched >= MIN_OVERLAP:
            if st.button(av.PAPER_HUMAN_BUTTON, key="anchors_human_paper"):
                s["human_ranking"] = paper[["model", "score"]]
            st.caption(av.paper_ranking_caption(matched, len(paper)))
        kinds = ["csv", "tsv", "json", "jsonl"]
        upload = st.file_uploader("Upload a human ranking", type=kinds, key="anchors_human_upload")
        if upload is not None:
            try:
                s["human_ranking"] = read_human_ranking(upload.getvalue(), name=upload.name)
                st.success(_ui.md(f"Loaded {upload.name}: {len(s['human_ranking'])} models."))
            except VerdictFormatError as exc:
                _ui.error(exc)
        if s.get("human_ranking") is not None:
            st.dataframe(shorten_cells(s["human_ranking"]), hide_index=True, height=200)
            _ui.download_csv(s["human_ranking"], "human_ranking.csv", key="dl_anchor_human")
        else:
            st.caption("No human ranking is loaded: the human columns stay empty.")
    return s.get("human_ranking")


def setup(intro: str = av.INTRO) -> AnchorView:
    """The controls, the human ranking, the sweep and the chosen anchor (``?anchor=`` in links);
    stops the page with a sentence when the selection has no anchor to study."""
    store = _ui.require_data()
    _ui.demo_banner()
    st.markdown(intro)
    c1, c2, c3, c4 = st.columns([2, 2, 1.3, 1.5])
    with c1:
        judge = _ui.judge_picker(store, key="anchors_judge")
    with c2:
        category = _ui.category_picker(store, key="anchors_category")
    radio = {"key": "anchors_tau", "horizontal": True, "format_func": av.tau_name, "help": av.TAU_HELP}
    tau = _ui.linked_choice(c3.radio, "Kendall's tau", ("b", "a"), param="tau", **radio)
    with c4:
        both = _ui.orders_picker(key="anchors_orders")
    human = human_ranking_box(store)
    hkey = ranking_key(human)  # the Overview page shares this cache key
    try:
        counts = _ui.counts(store, judge, category, both_orders=both)
        if counts.n_models < 2 or counts.calls == 0:
            st.warning(
                "This selection has verdicts for fewer than two models: there is no anchor to "
                "study. Choose another judge or category."
            )
            stop()
        with _ui.busy("Ranking the models against every anchor…"):  # seconds on arena-sized tables
            sweep = _ui.memo(
                ("anchor_sweep", judge, category, both, tau, hkey),
                lambda: an.anchor_sweep(counts, human_ranking=human, tau=tau),
            )
    except DesignError as exc:
        _ui.info(exc)
        stop()
    except ValueError as exc:
        _ui.error(exc)
        stop()
    _ui.info(*sweep.notes)
    if sweep.needs_all_pairs:
        _ui.caption(sweep.needs_all_pairs)
    anchors = list(sweep.table["anchor"])
    if not anchors:
        st.warning(
            "No model met at least two others in this selection: no anchor-based ranking can be formed."
        )
        stop()
    # a shared link may name the anchor; one this table does not have is named in a warning
    recommended = sweep.recommended if sweep.recommended in anchors else anchors[0]
    linked = _ui.url_choice("anchor", anchors, recommended)
    why = "Defaults to the most informative anchor; the link keeps your choice."
    label = "Chosen anchor (highlighted in the figures, explored below)"
    chosen = st.selectbox(label, anchors, index=anchors.index(linked), key="anchors_chosen", help=why)
    _ui.set_url_param("anchor", chosen)
    return AnchorView(store, judge, category, tau, both, human, hkey, counts, sweep, anchors, chosen)


def planner_inputs(d: dict, chosen: str) -> dict:
    """The planner's ten inputs (defaults ``d`` from :func:`av.planner_defaults`) as the keyword
    arguments of :func:`evalcore.anchors.plan_evaluation` (the model count positional)."""
    # every input is kept in the link (``?plan_models=`` …), so a copied link shows the same plan
    num, flag = _ui.linked_number, _ui.linked_flag
    g1, g2, g3 = st.columns(3)
    n_models = num(
        g1, "Models to evaluate", 2, 1000, int(d["models"]), param="plan_models", key="plan_models"
    )
    why = "E.g. the method a new one is meant to improve on."
    natural = flag(g2.checkbox, "A natural anchor exists", param="plan_natural", key="plan_natural", help=why)
    full = flag(g3.checkbox, "A full ranking is needed", param="plan_full", key="plan_full", default=True)
    h1, h2, h3 = st.columns(3)
    label = "Budget in judge calls (0 = no limit)"
    budget = num(h1, label, 0, 10**10, 0, step=1000, param="plan_budget", key="plan_budget")
    label = "Instructions planned (0 = as many as needed)"
    n_inst = num(h2, label, 0, 10**7, int(d["instructions"]), param="plan_instructions", key="plan_inst")
    why = "2 when every pair is judged in both slot orders (the loaded table's design is the default)."
    radio = {"param": "plan_orders", "key": "plan_orders", "default": d["orders"], "horizontal": True}
    orders = _ui.linked_choice(h3.radio, "Orders per pair", (1, 2), help=why, **radio)
    k1, k2, k3, k4 = st.columns(4)
    share = {"step": 0.01, "format": "%.3f", "param": "plan_informativeness", "key": f"plan_info_{chosen}"}
    why = "From the pilot when it has run, else from all data."
    label = "Informativeness of the chosen anchor"
    info = num(k1, label, 0.01, 1.0, float(d["informativeness"]), help=why, **share)
    share.update(
        param="plan_decisive", key="plan_direct", help="Share of non-tie verdicts in this selection."
    )
    direct = num(k2, "Decisive share of direct comparisons", 0.01, 1.0, float(d["decisive"]), **share)
    why = "+5% = the better model wins 55% of discordant samples."
    edge = num(
        k3, "Edge to detect", 0.01, 0.45, 0.05, step=0.01, param="plan_edge", key="plan_edge", help=why
    )
    pairs = num(k4, "Pairs of interest", 0, 10**6, 0, param="plan_pairs", key="plan_pairs")
    return {
        "n_models": int(n_models),
        "natural_anchor": natural,
        "full_ranking": full,
        "budget": int(budget) or None,
        "n_instructions": int(n_inst) or None,
        "anchor": chosen,
        "informativeness": float(info),
        "direct_decisive_rate": float(direct),
        "pairs_of_interest": int(pairs) or None,
        "orders": int(orders),
        "edge": float(edge),
    }


def resamples_input() -> int:
    """The Anchors page's instruction resamples for the recommendation's stability (``?resamples=``)."""
    number = {"step": 50, "param": "resamples", "key": "anchors_stab_rounds"}
    return int(_ui.linked_number(st, "Instruction resamples", 50, 2000, 200, **number))


def explorer(ranking, chosen: str, tau: str, judge: str, *, human_hint: bool = False) -> None:
    """One anchor's ranking: its tiles, (the hint to add a human ranking), caption and table."""
    _ui.number_tiles(av.explorer_metrics(ranking, tau))
    if human_hint:
        st.info(av.HUMAN_HINT)
    _ui.caption(av.explorer_caption(ranking, chosen))
    _ui.table(av.explorer_table(ranking), ranking.table, f"anchor_{chosen}_{judge}.csv", key="dl_anchor_rank")


def stability(result, judge: str) -> None:
    """How sure the recommendation is: its sentence, notes, caption and table."""
    if av.stability_sentence(result):
        st.markdown(_ui.md(av.stability_sentence(result)))
    _ui.warning(*result.notes)
    captions(av.stability_caption(result))
    _ui.table(av.stability_table(result), result.table, f"anchor_stability_{judge}.csv", key="dl_anchor_stab")


def judge_effect(effect, tau: str) -> None:
    """The anchor effect beside the judge effect: its sentence, caption and table (the chart is
    drawn by the page above it)."""
    if av.judge_effect_sentence(effect, tau):
        st.markdown(av.judge_effect_sentence(effect, tau))
    st.caption(av.JUDGE_CAPTION)
    _ui.table(av.judge_effect_table(effect), effect.table, "anchor_vs_judge.csv", key="dl_anchor_judges")
