"""The Judge page's explanations: one paragraph per section, in plain words (Markdown, no user
text). Methods are cited by authors and year."""

from __future__ import annotations

__all__ = ["EXPLAIN"]

#: The page's explanations (Markdown, no user text), one per section.
EXPLAIN: dict[str, str] = {
    "intro": "A judge is an instrument with a spec sheet: how much it prefers a slot, how often it "
    "contradicts itself when the answers swap places, how often it fails to answer, how "
    "well it agrees with people, and how it treats length and its own family.",
    "families": "One `model,family` line per model, and one per judge whose family you know (a "
    "judge is listed by its name in the file). The demo's families are filled in for "
    "the demo data.",
    "marks": "★ marks the best value of a column among the judges (closest to zero for position "
    "bias, slot bias, length effect and self-preference; highest for consistency, "
    "self-comparison ties, agreement and Cohen's kappa; lowest for flips and missing verdicts). Tie "
    "rates are not graded: how many ties a judge should give depends on the task. "
    "Intervals are in each judge's sheet (the tab Sheet and weights, below) and in the CSV.",
    "position": "**Position bias**: how much more often slot A wins than slot B, in percentage points, "
    "measured on model pairs judged in both slot orders with each order weighted "
    "equally, so which model sat where cannot fake a slot preference (not reported "
    "when no pair is seen in both orders). **Swap consistency**: the share of pairs "
    "judged in both orders whose two verdicts, from the same model's point of view, "
    "name the same outcome; the **flip rate** is the rest. **Both-orders verdict**: "
    "the verdict both orders agree on, else a tie (on the 5-level scale: the same "
    "winner in both orders, with the weaker of the two margins). A judge that rarely "
    "says tie but prefers the first slot produces its ties this way. Repeated calls "
    "of one order are paired at random. Bars: 95% intervals with instructions as "
    "clusters, made as the top of the page says (Zheng et al. 2023, *Judging LLM-as-a-Judge with MT-Bench and "
    "Chatbot Arena*).",
    "both_orders": "The both-orders verdict is offered on every other page (the **Both-orders "
    "verdicts** switch). Pairs judged in one order only have no both-orders verdict "
    "and are left out when it is on.",
    "order": "From the mean verdict when the opponent sits in slot A and the mean verdict when "
    "the anchor does: half their difference is the opponents' preference over the anchor net "
    "of position, and half their sum the slot-A bias (above zero favours slot A). Computed "
    "per model pair, pooled over instructions; weighted by calls. Self-comparison ties: "
    "where a model meets itself any verdict but a tie is position.",
    "agree_both": "Compare the both-orders verdict of each pair with every human judgement the "
    "pair carries, once, instead of each call's own verdict.",
    "families_lead": "**The family list cannot be read.** Write one `model,family` pair per line:",
    "no_judge": "No judge has verdicts between two different models in this selection: there is "
    "nothing to measure. Choose another category or load another file.",
    "no_order": "No model pair was judged in both slot orders, so the opponents' preference and the "
    "slot-A bias cannot be separated.",
    "no_lengths": "The file has no response lengths (length_a, length_b), so coverage by length "
    "cannot be shown.",
    "no_labels": "No call of this judge carries a human label (the `human` column), so agreement, "
    "Cohen's kappa and the compression table cannot be computed. Label a sample of pairs to get "
    "them.",
    "agreement": "Outcomes compared as win / tie / loss (the sign of a verdict). Agreement and Cohen's kappa "
    "read each call from slot A's point of view; their intervals treat labelled "
    "instructions as clusters. Krippendorff's alpha and the human ceiling need pairs labelled by two or more people "
    "(Krippendorff 2011; Cohen 1960).",
    "no_length_curve": "The file has no response lengths (length_a, length_b), so the length "
    "preference and the length-controlled ranking cannot be computed.",
    "length": "Left: each call read from the longer response's point of view; a judge with no "
    "length preference stays at 50% (Wilson 95% intervals, calls treated as "
    "independent). Right: Bradley–Terry with and without a length term, as the arena's "
    "style control does (Li et al. 2024; Dubois et al. 2024): the log-odds that A wins are A's "
    "strength less B's plus a length weight times the normalised length difference (the "
    "difference of the two lengths over their sum, in standard deviations).",
    "self_preference": "How much more the judge rates models of its own family than the other "
    "judges do, from a regression of its Bradley–Terry strengths on the other "
    "judges' (with its own scale) plus a family indicator; Elo points, 95% "
    "interval with instructions as clusters. The other judges are those without a family "
    "among the models when there are any (Panickssery et al. 2024: a judge "
    "favours its own generations).",
}
