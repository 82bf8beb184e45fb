"""Replay a corpus of games with the ``diplomacy`` PyPI package, for comparison only.

This script runs in its own virtual environment (``benchmarks/.venv-diplomacy``, see
``benchmarks/README.md``) and never imports anything from ``judge``: the ``diplomacy``
package is AGPL and must stay out of the judge's process.  It reads the corpus JSON that
``bench_adjudicate.py --compare`` writes and prints one JSON object on stdout.

Usage: ``benchmarks/.venv-diplomacy/bin/python benchmarks/diplomacy_replay.py CORPUS.json
[--repeat N]``.

Corpus format::

    {"games": [{"seed": 1,
                "phases": [{"phase": "S1901M",
                            "state": {"name": "S1901M", "units": {"FRANCE": ["A PAR", ...]},
                                      "retreats": {"FRANCE": {"F TRI": ["ALB"]}},
                                      "centers": {"FRANCE": ["PAR", ...]}},
                            "orders": {"FRANCE": ["A PAR - BUR", ...]}}, ...],
                "final": {...the state after the last phase...}}]}

Only ``set_orders`` (every power) and ``process()`` are timed, with ``time.perf_counter``
(``seconds``: both; ``process_seconds``: ``process()`` alone), and the same intervals'
CPU time with ``time.process_time`` (``cpu_seconds``, ``process_cpu_seconds``);
the loaded corpus is frozen out of the garbage collector (``gc.freeze``).
Before each phase the package's state is compared with the corpus's (untimed); when they
differ the phase before was adjudicated differently by the two engines, the difference is
counted and the package is put back in the corpus's state (``Game.set_state``), so every
phase is timed from the same position in both engines.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import platform
import sys
import time
from importlib import metadata
from typing import Any

KINDS = {"M": "movement", "R": "retreat", "A": "adjustment"}


def _comparable(state: dict[str, Any]) -> dict[str, Any]:
    """The parts of a state both engines must agree on: phase, units, centres."""
    units = {p: sorted(u) for p, u in state.get("units", {}).items() if u}
    centres = {p: sorted(c) for p, c in state.get("centers", {}).items() if c}
    return {"name": state.get("name"), "units": units, "centers": centres}


def _differences(mine: dict[str, Any], theirs: dict[str, Any]) -> str:
    parts = []
    for key in ("name", "units", "centers"):
        if mine[key] != theirs[key]:
            if isinstance(mine[key], dict):
                powers = sorted(set(mine[key]) | set(theirs[key]))
                diff = {
                    p: {"package": mine[key].get(p, []), "corpus": theirs[key].get(p, [])}
                    for p in powers
                    if mine[key].get(p, []) != theirs[key].get(p, [])
                }
                parts.append(f"{key}: {json.dumps(diff)}")
            else:
                parts.append(f"{key}: package {mine[key]} corpus {theirs[key]}")
    return "; ".join(parts)


def replay(corpus: dict[str, Any]) -> dict[str, Any]:
    """Replay every game once; return timings and the disagreements found."""
    game_class = importlib.import_module("diplomacy").Game
    seconds = {k: 0.0 for k in KINDS.values()}
    process_seconds = {k: 0.0 for k in KINDS.values()}
    cpu_seconds = {k: 0.0 for k in KINDS.values()}
    process_cpu_seconds = {k: 0.0 for k in KINDS.values()}
    counts = {k: 0 for k in KINDS.values()}
    disagreements = 0
    examples: list[str] = []
    refused = 0
    refused_examples: list[str] = []

    def check(game: Any, expected: dict[str, Any], label: str) -> bool:
        nonlocal disagreements
        mine = _comparable(game.get_state())
        theirs = _comparable(expected)
        if game.is_game_done and mine["units"] == theirs["units"]:
            mine["name"] = theirs["name"]  # the package stops at a solo; so do we
        if mine == theirs:
            return True
        disagreements += 1
        if len(examples) < 10:
            examples.append(f"{label}: {_differences(mine, theirs)}")
        return False

    for played in corpus["games"]:
        game = game_class()
        previous = "start"
        for phase in played["phases"]:
            state = phase["state"]
            if not check(game, state, f"seed {played['seed']} after {previous}"):
                game.set_state(state)
            game.error = []
            kind = KINDS[phase["phase"][-1]]
            orders = phase["orders"]
            start_cpu = time.process_time()
            start = time.perf_counter()
            for power, items in orders.items():
                game.set_orders(power, items)
            middle = time.perf_counter()
            middle_cpu = time.process_time()
            if game.error:
                refused += len(game.error)
                for error in game.error:
                    if len(refused_examples) < 10:
                        refused_examples.append(f"seed {played['seed']} {phase['phase']}: {error}")
                game.error = []
            resume_cpu = time.process_time()
            resume = time.perf_counter()
            game.process()
            end = time.perf_counter()
            end_cpu = time.process_time()
            seconds[kind] += (middle - start) + (end - resume)
            process_seconds[kind] += end - resume
            cpu_seconds[kind] += (middle_cpu - start_cpu) + (end_cpu - resume_cpu)
            process_cpu_seconds[kind] += end_cpu - resume_cpu
            counts[kind] += 1
            previous = phase["phase"]
        check(game, played["final"], f"seed {played['seed']} after {previous}")
    return {
        "seconds": seconds,
        "process_seconds": process_seconds,
        "cpu_seconds": cpu_seconds,
        "process_cpu_seconds": process_cpu_seconds,
        "phases": counts,
        "disagreements": disagreements,
        "disagreement_examples": examples,
        "refused_orders": refused,
        "refused_examples": refused_examples,
    }


def main(argv: list[str] | None = None) -> int:
    """Read the corpus, replay it ``--repeat`` times, print the best pass as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", help="the corpus JSON written by bench_adjudicate.py")
    parser.add_argument("--repeat", type=int, default=1, help="passes; the fastest is kept")
    args = parser.parse_args(argv)
    with open(args.corpus, encoding="utf-8") as handle:
        corpus = json.load(handle)
    gc.collect()
    gc.freeze()  # as bench_adjudicate.py does with its corpus
    best: dict[str, Any] | None = None
    for _ in range(max(1, args.repeat)):
        result = replay(corpus)
        if best is None or sum(result["seconds"].values()) < sum(best["seconds"].values()):
            best = result
    assert best is not None
    best["engine"] = f"diplomacy {metadata.version('diplomacy')}"
    best["python"] = f"{platform.python_implementation()} {platform.python_version()}"
    best["games"] = len(corpus["games"])
    best["repeat"] = max(1, args.repeat)
    json.dump(best, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
