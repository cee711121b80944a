"""The Calibration page's own words: explanations, help texts and widget settings (no user text).

Kept apart from :mod:`evalcore.present.calibration` (which re-exports them) so that the
sentences built from results and the fixed texts each stay short enough to read.
"""

from __future__ import annotations

from evalcore.calibration.correction import DEFAULT_MAX_FLOOR
from evalcore.calibration.floors import FLOOR_SIZES

SLOT_A = "Slot A (every call)"
UNITS = {"The table's own unit": None, "Both-orders verdict": True, "Each judge call": False}
TABS = ("Correction", "Prediction-powered ratings", "Floor and sample size", "Coverage simulation", "Gates")
ALL_OPPONENTS, SAME, ALL_CATEGORIES = "All opponents", "Same slice as the corrected rows", "All categories"

INTRO = (
    "A judge's win rate is compressed toward 50/50; only a labelled comparison recovers the human "
    "number, at a price set by the judge's Youden's J (sensitivity plus specificity minus one: 1 is a perfect "
    "judge, 0 a coin). Labelled rows are the rows with a `human` label. **Printed** win rate: wins plus "
    "half the ties, over the units, as every comparison tool prints it. **Corrected** rate = the estimated share of "
    "units a human would call a candidate win (a tie is *not* a win). **Corrected win rate (both "
    "arms)** = the share a human would call a win plus half the share a human would call a tie, "
    "wins and losses each corrected: the human number the "
    "printed rate stands for, and what a corrected gate tests."
)
TIES = (
    "**Printed** counts a tie as half a win; **Corrected** counts a tie as not a win; "
    "**Corrected win rate** counts a human tie as half a win, like the printed rate."
)
METHOD = (
    "The judge-says-win share is what Rogan and Gladen (1978) correct: the printed share plus the "
    "specificity less one, divided by the sensitivity plus the specificity less one (Youden's J), "
    "kept between 0 and 1. The Lang–Reiczigel interval (2014) carries the uncertainty of the "
    "sensitivity and the specificity into the interval. The confusion matrix behind them is on the Judge page."
)
FLOOR = (
    "Half-width of the Lang–Reiczigel interval with unlimited judged pairs, read with equal "
    "sensitivity and specificity (each half of one plus Youden's J), the labelled pairs split evenly between human wins and non-wins, Lang–Reiczigel's "
    "pseudo-counts and a true share of 37.5%. The published table at a Youden's J of about 0.57: ±33–35 percentage "
    "points at 25 labelled pairs, ±15–16 at 100, ±7–8 at 400, ±4 at 1,600."
)
LADDER = (
    "Judged pairs needed: — where the floor at that labelled size is already wider than the "
    "target: no number of judged pairs reaches it."
)
NO_PROFILE = (
    "This selection has no measured sensitivity and specificity (it needs labelled human wins and non-wins), so "
    "there is no judge profile to simulate. Pick a selection with labelled rows."
)
COVERAGE = (
    "Truth = the share of human-called candidate wins. Each study draws human outcomes, the "
    "judge's win/tie/loss from this judge's measured rates, and a labelled set split evenly "
    "between human wins and non-wins. Refused: the studies whose measured Youden's J was zero or "
    "below."
)
PPI = (
    "**Prediction-powered ratings** (PPI++: Angelopoulos, Duchi & Zrnic 2023; for arena ratings "
    "Boyeau et al., ICML 2025) fit Bradley–Terry ratings to the judge's verdicts on every pair and "
    "subtract the judge's error measured on the labelled pairs, so the ratings estimate what the "
    "humans would give. Ratings in Elo points (mean 1000); 95% intervals clustered by instruction "
    "(a label shared by both orders of a pair counts once). *Worth*: the labelled pairs a "
    "human-only study would need for the same interval width. Same numbers: `python -m evalcore "
    "ppi FILE --judge J --json`."
)
PPI_REFUSED = "**No prediction-powered ratings for this selection.** "
JS_ERROR = "Youden's J values: type numbers between -1 and 1, separated by commas."
CANNOT = "**Cannot calibrate this selection.** Pick another candidate, opponent or category:"
PICK_SIZES = "Pick at least one labelled-set size and one Youden's J."
PICK_CANDIDATE = "Pick a candidate model (and ideally the model it replaces under 'Against') to gate on it."
CLI = (
    "Same gate from the command line: `python -m evalcore gate FILE --judge J --candidate M "
    "--baseline B [--margin 0.05] [--corrected]` exits 0 on pass, 1 on fail."
)
HELP = {
    "candidate": "The model whose win rate is corrected (it starts with the judge's top-rated model); "
    "slot A reads every call from the first slot's point of view.",
    "labelled": "Where the judge's sensitivity and specificity are measured. An error profile belongs to its population.",
    "floor": "The floor is the narrowest corrected interval the labelled set allows, however many "
    "pairs are judged.",
    "unit": "The table's own unit: the both-orders verdict (the verdict both orders agree on, else a "
    "tie) when the table is judged in both orders and a candidate is picked, so each human "
    "label counts once; else one unit per judge call.",
    "gate": "Superiority: lower bound above 50%. Non-inferiority: lower bound above 50% minus the margin.",
    "gate_on": "Printed: lower bound of the win rate (wins plus half the ties, over the units), Wilson interval clustered by instruction. "
    "Corrected: lower bound of the corrected win rate, human wins plus half the human ties, both arms "
    "corrected (needs labelled pairs). Prediction-powered: lower bound of the probability that a "
    "human prefers the candidate to the model under 'Against', from the prediction-powered ratings.",
}
#: Widget arguments (labels, ranges, defaults), so the page keeps only the layout and the keys.
WIDGETS: dict[str, dict] = {
    "max_floor": dict(
        label="Refuse when the floor is wider than ± (percentage points)",
        min_value=5,
        max_value=50,
        value=int(100 * DEFAULT_MAX_FLOOR),
        help=HELP["floor"],
    ),
    "floor_sizes": dict(
        label="Labelled pairs", options=list(FLOOR_SIZES) + [50, 200, 800, 3200], default=list(FLOOR_SIZES)
    ),
    "floor_custom": dict(label="Custom size (0 = none)", min_value=0, max_value=1_000_000, value=0, step=50),
    "floor_js": dict(label="Youden's J values (comma-separated)", value="0.57, 0.34, 0.21"),
    "target": dict(label="Target half-width (± percentage points)", min_value=1, max_value=30, value=10),
    "max_labelled": dict(
        label="At most this many labelled pairs", min_value=10, max_value=1_000_000, value=1600, step=100
    ),
    "sim_n": dict(label="Judged pairs per study", min_value=20, max_value=100_000, value=300, step=50),
    "sim_lab": dict(label="Labelled pairs per study", min_value=4, max_value=100_000, value=25, step=25),
    "sim_runs": dict(
        label="Simulated studies per true rate", min_value=100, max_value=20_000, value=2000, step=500
    ),
    "gate_kind": dict(label="Gate", options=["superiority", "non-inferiority"], help=HELP["gate"]),
    "margin": dict(label="Non-inferiority margin (percentage points)", min_value=1, max_value=20, value=5),
    "gate_on": dict(
        label="Gate on", options=["printed", "corrected", "prediction-powered"], help=HELP["gate_on"]
    ),
    "certify": dict(
        label="Certify the judge when both lower bounds reach (%)",
        min_value=50,
        max_value=99,
        value=80,
        help="Judge certification: the lower 95% Wilson bound of the judge's agreement with humans on "
        "human wins (sensitivity) and on human non-wins (specificity) must both reach this share.",
    ),
}
NEEDS_CANDIDATE = (
    "The both-orders verdict needs a candidate model (slot A changes sides between the two "
    "orders): counting every call until one is picked."
)
