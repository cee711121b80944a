"""The progress callback that long computations accept (pages draw ``st.progress`` from it)."""

from __future__ import annotations

from typing import Callable

#: ``progress(fraction_done, label)``, fraction in [0, 1]; ``None`` where nobody is watching.
Progress = Callable[[float, str], None]
