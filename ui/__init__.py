"""Streamlit glue shared by the pages: the session's store, the data guard, pickers, downloads.

Pages stay thin: widgets, a call into evalcore, a figure. Nothing here computes a statistic.

The glue is split by purpose: :mod:`ui.messages`, :mod:`ui.state`, :mod:`ui.widgets`,
:mod:`ui.navigation`, :mod:`ui.datasets` (the Data page's saved datasets); the names the pages
use are re-exported here, so pages write ``ui.<name>``.
"""

from __future__ import annotations

# First: on a fresh server's first page, importing ui.warm says what happens while the imports
# below (and the page's own) load the libraries, and starts the demo's start-up work, so that
# DuckDB reads the demo meanwhile.
from ui import warm as _warm  # noqa: F401
from ui.datasets import saved_datasets  # noqa: F401
from ui.messages import caption, code_span, error, escape_markdown, info, md, metric, stop_with, warning  # noqa: F401
from ui.navigation import PAGES, finding_link, methods_link, page, page_link, verdicts_link  # noqa: F401
from ui.readable import count_columns  # noqa: F401
from ui.state import (  # noqa: F401
    DEFAULT_DEMO,
    DEMO_DATASETS,
    counts,
    ensure_data,
    forget_on_new_data,
    install,
    load_demo,
    memo,
    read_into_session,
    require_data,
    session_store,
    set_url_param,
    shared_cache,
    state,
    url_choice,
    url_number,
    url_param,
)
from ui.status import busy, stop  # noqa: F401
from ui.widgets import (  # noqa: F401
    PriceInput,
    category_picker,
    chart,
    demo_banner,
    download_csv,
    judge_picker,
    linked_choice,
    linked_flag,
    linked_input,
    linked_multi,
    linked_number,
    memo_or_info,
    number_tiles,
    open_tabs,
    orders_picker,
    prices_input,
    progress_bar,
    safe_csv,
    selection,
    table,
    tiles,
)
