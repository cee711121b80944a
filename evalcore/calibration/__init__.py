"""Calibrating a judge's win rate against human labels.

- :mod:`evalcore.calibration.rogan_gladen`: the Rogan–Gladen correction and the naive interval.
- :mod:`evalcore.calibration.lang_reiczigel`: the Lang–Reiczigel interval and its floor.
- :mod:`evalcore.calibration.floors`: the floor table and the labelled/judged size picker.
- :mod:`evalcore.calibration.counts`: units (per call or both-orders verdict) counted in DuckDB,
  per instruction pattern.
- :mod:`evalcore.calibration.clustering`: design effects and the corrected win rate on both arms.
- :mod:`evalcore.calibration.correction`: :func:`calibrate`, the refusal rule.
- :mod:`evalcore.calibration.transfer`: the transfer and unit conditions stated in words.
- :mod:`evalcore.calibration.gate`: superiority and non-inferiority gates (printed, corrected or
  prediction-powered).
- :mod:`evalcore.calibration.ppi`: prediction-powered Bradley–Terry ratings (PPI++).
- :mod:`evalcore.calibration.coverage`: the coverage simulation with a known truth.
- :mod:`evalcore.calibration.selection`: the policies a view starts on (default pair, unit rule,
  release gate) as keyword options.

References
----------
Rogan, W. J. & Gladen, B. (1978). Estimating prevalence from the results of a screening test.
*American Journal of Epidemiology* 107(1), 71–76.
Angelopoulos, A. N., Duchi, J. C. & Zrnic, T. (2023). PPI++: Efficient prediction-powered
inference. arXiv:2311.01453.
Lang, Z. & Reiczigel, J. (2014). Confidence limits for prevalence of disease adjusted for
estimated sensitivity and specificity. *Preventive Veterinary Medicine* 113(1), 13–22.
"What a pairwise win rate is worth: six judges against expert and crowd labels" (2025).
"""

from evalcore.calibration.clustering import (
    WIN_RATE_ESTIMAND,
    WIN_RATE_METHOD,
    corrected_win_rate,
    design_effect,
)
from evalcore.calibration.correction import (
    DEFAULT_MAX_FLOOR,
    ESTIMANDS,
    MIN_PER_CLASS,
    Calibration,
    calibrate,
)
from evalcore.calibration.counts import (
    PATTERN_COLUMNS,
    SAME_SLICE,
    CalibrationCounts,
    calibration_counts,
)
from evalcore.calibration.coverage import CoverageResult, coverage_simulation
from evalcore.calibration.floors import (
    FLOOR_SIZES,
    FLOOR_TRUE_SHARE,
    SizePlan,
    floor_half_width,
    floor_table,
    size_plan,
)
from evalcore.calibration.gate import GateResult, noninferiority_gate, ppi_gate, superiority_gate
from evalcore.calibration.lang_reiczigel import lang_reiczigel_interval
from evalcore.calibration.ppi import PPIRatings, ppi_ratings
from evalcore.calibration.rogan_gladen import naive_interval, rogan_gladen
from evalcore.calibration.selection import (
    CalibrationSelection,
    calibration_selection,
    default_pair,
    release_gate,
)
from evalcore.calibration.transfer import transfer_warning
from evalcore.stats.intervals import Z95, wilson_interval

__all__ = [
    "CalibrationSelection",
    "calibration_selection",
    "default_pair",
    "release_gate",
    "DEFAULT_MAX_FLOOR",
    "ESTIMANDS",
    "FLOOR_SIZES",
    "FLOOR_TRUE_SHARE",
    "MIN_PER_CLASS",
    "PATTERN_COLUMNS",
    "SAME_SLICE",
    "WIN_RATE_ESTIMAND",
    "WIN_RATE_METHOD",
    "Z95",
    "Calibration",
    "CalibrationCounts",
    "CoverageResult",
    "GateResult",
    "PPIRatings",
    "SizePlan",
    "calibrate",
    "calibration_counts",
    "corrected_win_rate",
    "coverage_simulation",
    "design_effect",
    "floor_half_width",
    "floor_table",
    "lang_reiczigel_interval",
    "naive_interval",
    "noninferiority_gate",
    "ppi_gate",
    "ppi_ratings",
    "rogan_gladen",
    "size_plan",
    "superiority_gate",
    "transfer_warning",
    "wilson_interval",
]
