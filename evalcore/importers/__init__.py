"""Importers: the native output files of the LLM-judge tools people already run → the contract.

Each importer reads one tool's own file as the tool writes it and returns the rows of the verdict
table (``docs/data.md``): one row per judge call, ``model_a`` the response the judge
saw **first**, the verdict on −2..+2 from slot A's point of view, and calls that returned no
verdict kept as empty verdicts (never imputed). :func:`convert_native` recognises the format from
the fields present; :func:`evalcore.store.store.read_verdicts` calls it for anything that is not already a
verdict table, so the app and every CLI command read these files as they are.

One module per tool: :mod:`.arena_hard`, :mod:`.alpaca_eval`, :mod:`.mt_bench`,
:mod:`.chatbot_arena`; :mod:`.detect` recognises the format. The formats converted record by
record (:data:`STREAMED`) have a :class:`Conversion` that converts one batch at a time and settles
what needs the whole file (problems found in any record, the label's counts) at the end; a battle
table also needs a few facts of the whole file before its first row
(:class:`~evalcore.importers.chatbot_arena.BattleFacts`), which a streamed load works out in SQL.
A streamed load (:mod:`evalcore.ingest.native`) and :func:`convert_native` on a file in memory run
that same code. Recognised formats:

* **Arena-Hard-Auto judgment JSONL** (``lmarena/arena-hard-auto``, ``gen_judgment.py``): one line
  per question and model with ``games``; game 1 shows the baseline as Assistant A and the model as
  Assistant B, game 2 swaps them. Both games become rows in their own slot order.
* **AlpacaEval annotations JSON** (``tatsu-lab/alpaca_eval``, ``annotations.json``):
  ``preference`` in [1, 2] against ``generator_1`` (the reference), mirrored back from a random
  display order. The order is recovered from the judge's logprobs where they are stored
  (:func:`alpaca_slot_order`), else the row is written in the stored orientation and the format
  label says so.
* **MT-Bench pairwise judgments** (``lm-sys/FastChat``, ``fastchat/llm_judge``): GPT-4 pair files
  (``model_1``, ``model_2``, ``g1_winner``, ``g2_winner``; game 2 swapped) and the human / GPT-4
  judgment tables of ``lmsys/mt_bench_human_judgments`` (``model_a``, ``model_b``, ``winner``).
  The turn goes into the instruction id (``"81#t2"``) and the category (``"turn 2"``).
* **Chatbot Arena battle tables** (FastChat ``clean_battle_data.py``, ``lmsys`` arena datasets):
  ``model_a`` (left), ``model_b`` (right), ``winner`` = model_a / model_b / tie / tie (bothbad);
  also the one-hot ``winner_model_a`` / ``winner_model_b`` / ``winner_tie`` form.
* **The anchor paper's released judgements** (``ibm-research/900K-Judgements``, Don-Yehiya et al.
  2026): ``uid``, ``judge_model``, ``model_a_in_prompt`` (slot A), ``model_b_in_prompt``,
  ``final_verdict`` (``X>>Y``, ``X>Y``, ``X=Y``); converted in SQL by :mod:`.judgements_900k`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evalcore.importers._common import Conversion, Records
    from evalcore.importers.alpaca_eval import (
        ALPACA_LOSS_BELOW,
        ALPACA_ORDER_TOLERANCE,
        ALPACA_WIN_ABOVE,
        alpaca_first_slot_probability,
        alpaca_slot_order,
        alpaca_verdict,
        from_alpaca_eval,
        instruction_key,
    )
    from evalcore.importers.arena_hard import ARENA_HARD_SCORES, UNNAMED_BASELINE, from_arena_hard
    from evalcore.importers.chatbot_arena import ARENA_VOTERS, from_battles, from_battles_one_hot
    from evalcore.importers.detect import (
        NAMES,
        STREAMED,
        conversion,
        convert_native,
        detect_native,
        no_calls,
        reading,
        wrong_tool_file,
    )
    from evalcore.importers.mt_bench import from_mt_bench_pair

#: Where each name of this package lives. The importers read frames (pandas); a file DuckDB
#: converts in SQL (a Chatbot Arena battle table, the anchor paper's judgements) needs only a
#: few of their names, so a module is imported when one of its names is first asked for
#: (PEP 562), and reading such a file does not load pandas.
_HOMES = {
    "Conversion": "_common",
    "Records": "_common",
    "ALPACA_LOSS_BELOW": "alpaca_eval",
    "ALPACA_ORDER_TOLERANCE": "alpaca_eval",
    "ALPACA_WIN_ABOVE": "alpaca_eval",
    "alpaca_first_slot_probability": "alpaca_eval",
    "alpaca_slot_order": "alpaca_eval",
    "alpaca_verdict": "alpaca_eval",
    "from_alpaca_eval": "alpaca_eval",
    "instruction_key": "alpaca_eval",
    "ARENA_HARD_SCORES": "arena_hard",
    "UNNAMED_BASELINE": "arena_hard",
    "from_arena_hard": "arena_hard",
    "ARENA_VOTERS": "labels",
    "from_battles": "chatbot_arena",
    "from_battles_one_hot": "chatbot_arena",
    "NAMES": "labels",
    "STREAMED": "detect",
    "conversion": "detect",
    "convert_native": "detect",
    "detect_native": "detect",
    "no_calls": "detect",
    "reading": "detect",
    "wrong_tool_file": "detect",
    "from_mt_bench_pair": "mt_bench",
}


_MODULES = (
    "_common",
    "alpaca_eval",
    "arena_hard",
    "chatbot_arena",
    "detect",
    "judgements_900k",
    "labels",
    "mt_bench",
)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        if name in _MODULES:  # a submodule not imported yet (``importers.chatbot_arena``)
            return importlib.import_module(f"{__name__}.{name}")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # once: later reads are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


__all__ = [
    "ALPACA_LOSS_BELOW",
    "ALPACA_ORDER_TOLERANCE",
    "ALPACA_WIN_ABOVE",
    "ARENA_HARD_SCORES",
    "ARENA_VOTERS",
    "NAMES",
    "STREAMED",
    "UNNAMED_BASELINE",
    "Conversion",
    "Records",
    "alpaca_first_slot_probability",
    "alpaca_slot_order",
    "alpaca_verdict",
    "conversion",
    "convert_native",
    "detect_native",
    "from_alpaca_eval",
    "from_arena_hard",
    "from_battles",
    "from_battles_one_hot",
    "from_mt_bench_pair",
    "instruction_key",
    "no_calls",
    "reading",
    "wrong_tool_file",
]
