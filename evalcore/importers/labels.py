"""The importers' names and words that code reading a file in SQL needs too (the formats' names,
the crowd judge of a battle table, how its winners were read, MT-Bench's rater ids), without the
importers themselves: these need pandas, a file DuckDB converts does not."""

from __future__ import annotations

import re

#: The native formats by key, in words (the key :func:`evalcore.importers.detect.detect_native`
#: returns). Here rather than in ``detect`` so that each importer can name its format without
#: importing the module that dispatches to it.
NAMES = {
    "arena_hard": "Arena-Hard-Auto judgment JSONL",
    "alpaca_eval": "AlpacaEval annotations JSON",
    "mt_bench_pair": "MT-Bench GPT-4 pairwise judgments",
    "battles": "Chatbot Arena battle table",
    "battles_one_hot": "Chatbot Arena battle table",
    "judgements_900k": "Anchor-paper judgements (ibm-research/900K-Judgements)",
}

#: Judge name for Chatbot Arena tables whose judge column holds one id per voter.
ARENA_VOTERS = "Chatbot Arena voters"

#: How a battle table's winners were read (the format label's first note).
BATTLE_NOTE = (
    "winner model_a = left = slot A; ties and tie (bothbad) are ties, tie (bothbad) also marked both_bad"
)

#: The rater ids of MT-Bench's human-judgment table (its battles need the turn logic).
MT_BENCH_RATER = re.compile(r"^(expert|author)_\d+$")
