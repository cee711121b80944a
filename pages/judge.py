"""Judge: every judge's spec sheet side by side, then one judge section by section.

The top (the intervals, the families, the judges side by side and the judge picker) is always
drawn; the sections below are tabs of which only the open one is drawn and computed
(:func:`ui.open_tabs`): the length curve, the both-orders agreement and the judges' weights are
computed when their tab is opened."""

from __future__ import annotations

import streamlit as st

import ui as _ui
from evalcore import judge as ej
from evalcore.plots import judge as plots
from evalcore.present import judge as show
from evalcore.present.judge import EXPLAIN
from evalcore.verdicts import VerdictFilter
from ui import judge_view as view
from ui.judges import judge_weights_section

with _ui.page("Judge"):
    st.title("Judge")
    store = _ui.require_data()
    _ui.demo_banner()
    st.caption(EXPLAIN["intro"])
    c1, c2 = st.columns([2, 2])
    with c1:
        category = _ui.category_picker(store, key="judge_category")
    chosen = view.interval_choice(category, c2)
    opts = chosen.opts
    judges = store.judges()
    family = view.families_picker(judges)

    with _ui.progress_bar(chosen.words) as progress:
        sheets = _ui.memo(
            ("judge_sheets", *opts.values(), family.key),
            lambda: ej.judge_sheets(
                store, families=family.families, progress=progress, cache=_ui.memo, **opts
            ),
        )
    ok = {name: sheet for name, sheet in sheets.items() if not isinstance(sheet, str)}
    _ui.warning(*show.judge_warnings(sheets))
    if not ok:
        st.info(EXPLAIN["no_judge"])
        _ui.stop()

    st.header("The judges side by side")
    _ui.table(show.side_by_side(sheets))
    st.caption(EXPLAIN["marks"] + " " + view.interval_sentence(opts))
    _ui.download_csv(
        ej.comparison_table(sheets), "judge_comparison.csv", label="Download the comparison (CSV)"
    )
    with st.expander("What each column means"):
        st.table(show.column_definitions())

    judge = _ui.judge_picker(store, key="judge_page")
    sheet = ok.get(judge)
    if sheet is None:
        _ui.warning(f"{judge} has no sheet in this selection: {sheets.get(judge)}")
        _ui.stop()
    _ui.info(*sheet.notes)  # its design warnings are said once, at the top of the page

    # the agreement tab's switch, set by a link, opens that tab
    tabs, shown = _ui.open_tabs(list(view.TABS), key="judge_tab", params={3: ("agree_orders",)})
    if shown[0]:
        with tabs[0]:
            st.header("Position")
            left, right = st.columns(2)
            _ui.chart(plots.position_bias_figure(ej.comparison_table(ok)), left)
            _ui.chart(plots.tie_rates_figure(ej.comparison_table(ok)), right)
            st.caption(EXPLAIN["position"])
            st.info(EXPLAIN["both_orders"])
            _ui.number_tiles(show.position_metrics(sheet))
            st.caption(show.both_orders_sentence(sheet))
            flipped = VerdictFilter(judge=judge, category=category, flipped=True)
            _ui.verdicts_link(show.flips_link_label(sheet), flipped)

    if shown[1]:
        with tabs[1]:
            st.header("Order-swap decomposition")
            view.order_swap(sheet, judge)

    if shown[2]:
        with tabs[2]:
            st.header("Coverage")
            cov = sheet.coverage
            _ui.number_tiles([show.coverage_metric(sheet)])
            left, right = st.columns(2)
            by_model, by_length = cov.by_model, cov.by_length
            figure = plots.coverage_figure(by_model, by="model")
            _ui.chart(figure, left, by_model, f"coverage_by_model_{judge}.csv")
            if len(by_length):
                figure = plots.coverage_figure(by_length, by="length")
                _ui.chart(figure, right, by_length, f"coverage_by_length_{judge}.csv")
            else:
                right.info(EXPLAIN["no_lengths"])
            st.caption(show.tie_structure_sentence(sheet))

    if shown[3]:
        with tabs[3]:
            st.header("Agreement with humans")
            ag = sheet.agreement
            if ag is None:
                st.info(EXPLAIN["no_labels"])
            else:
                toggle = dict(param="agree_orders", key="judge_agree_both", help=EXPLAIN["agree_both"])
                if _ui.linked_flag(st.toggle, "Compare both-orders verdicts", **toggle):
                    both = _ui.memo_or_info(
                        ("agreement_both", judge, *opts.values()),
                        lambda: show.both_orders_agreement(store, judge, **opts),
                    )
                    ag = both if both is not None else ag
                view.agreement(ag, judge, said=(*sheet.notes, *sheet.design_warnings))

    if shown[4]:
        with tabs[4]:
            st.header("Length and family")
            curve = _ui.memo(
                ("length_curve", judge, category),
                lambda: ej.length_preference_curve(store, judge, category=category),
            )
            view.length(curve, sheet, judge)
            st.subheader("Self-preference")
            view.self_preference(sheets, n_judges=len(judges), has_families=bool(family.families))

    if shown[5]:
        with tabs[5]:
            st.header(f"The sheet of {_ui.md(judge)}")
            _ui.table(show.sheet_display(sheet))
            _ui.download_csv(sheet.table(), f"judge_sheet_{judge}.csv", label="Download this sheet (CSV)")
            resampled = opts.get("interval") == "bootstrap"
            judge_weights_section(store, category, resample=resampled)  # each weight beside its certification
