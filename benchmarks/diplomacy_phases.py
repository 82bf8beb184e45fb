"""Adjudicate single phases with the ``diplomacy`` PyPI package, for the differential run.

Like ``diplomacy_replay.py`` this runs in its own virtual environment
(``benchmarks/.venv-diplomacy``) and imports nothing from ``judge``: the package is AGPL
and stays out of the judge's process.  ``differential.py`` starts it as a subprocess.

Usage: ``benchmarks/.venv-diplomacy/bin/python benchmarks/diplomacy_phases.py PHASES.json``

Input: ``{"phases": [{"id": 7, "state": {...}, "orders": {"FRANCE": ["A PAR - BUR"]}}]}``
with each state in the package's own shape (``name``, ``units`` with ``*`` before a
dislodged unit, ``retreats``, ``centers``).  Output, on stdout, one JSON object per phase
and line: ``{"id": 7, "state": {"name", "units", "retreats", "centers"}, "results":
{"A PAR": ["bounce"]}, "errors": ["..."]}``: the state after ``process()``, the package's
result notes of every unit ordered, and the orders it refused.  A retreat phase in which
no dislodged unit has anywhere to go is processed at once (the units are disbanded), as
the judge does.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any


def _state(game: Any) -> dict[str, Any]:
    state = game.get_state()
    return {
        "name": state.get("name"),
        "units": {p: sorted(u) for p, u in state.get("units", {}).items() if u},
        "retreats": {p: r for p, r in state.get("retreats", {}).items() if r},
        "centers": {p: sorted(c) for p, c in state.get("centers", {}).items() if c},
    }


def adjudicate(game_class: Any, phase: dict[str, Any]) -> dict[str, Any]:
    """Set up ``phase``'s state in a fresh game, give the orders, process; what came out."""
    game = game_class()
    game.set_state(phase["state"])
    game.error = []
    for power, orders in phase["orders"].items():
        game.set_orders(power, orders)
    errors = [str(e) for e in game.error]
    game.error = []
    game.process()
    results: dict[str, list[str]] = {}
    if game.result_history:
        for unit, notes in game.result_history.last_value().items():
            results[str(unit)] = [getattr(n, "message", str(n)) for n in notes]
    # A retreat phase where no dislodged unit can go anywhere has nothing to order: the
    # judge disbands those units at once and moves on, so play it out the same way.
    while (
        game.get_current_phase().endswith("R")
        and not game.is_game_done
        and not any(any(r.values()) for r in (p.retreats for p in game.powers.values()))
    ):
        game.process()
    return {"id": phase["id"], "state": _state(game), "results": results, "errors": errors}


def main(argv: list[str] | None = None) -> int:
    """Read the phases, adjudicate each, print one JSON line per phase."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    with open(args[0], encoding="utf-8") as handle:
        phases = json.load(handle)["phases"]
    game_class = importlib.import_module("diplomacy").Game
    out = sys.stdout
    for phase in phases:
        out.write(json.dumps(adjudicate(game_class, phase)) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
