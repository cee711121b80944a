"""Simulated verdict tables with a known truth, written in the same shape a user uploads.

Modules: :mod:`.tables` (judges with a slot bias, humans, ties; :func:`simulate`), :mod:`.arena`
(Chatbot Arena-shaped battles: one prompt per battle, optional style features), :mod:`.text`
(prompts and answers for the text columns). The names below are the package's face for
notebooks (``SimulationSpec`` and ``simulate`` imported from this package), imported lazily.
"""

from __future__ import annotations

from evalcore import lazy_face

_EXPORTS = {
    "JudgeSpec": "evalcore.simulate.tables",
    "SimulationSpec": "evalcore.simulate.tables",
    "Simulation": "evalcore.simulate.tables",
    "simulate": "evalcore.simulate.tables",
    "true_human_ratings": "evalcore.simulate.tables",
    "ArenaSimulation": "evalcore.simulate.arena",
    "simulate_arena": "evalcore.simulate.arena",
    "arena_verdict_frame": "evalcore.simulate.arena",
    "write_arena_dump": "evalcore.simulate.arena",
    "add_text": "evalcore.simulate.text",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_face(__name__, _EXPORTS)
