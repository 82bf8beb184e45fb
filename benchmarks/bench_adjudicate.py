"""Time the engine replaying a fixed corpus of seeded random games.

Usage::

    python benchmarks/bench_adjudicate.py [--games N] [--last-year Y] [--repeat R] [--compare]

The corpus is ``--games`` games (20 by default) played by
:func:`benchmarks.random_games.play_game` with seeds 1..N from 1901 to the end of
``--last-year`` (1930).  Building it is not timed.  Then every recorded phase is
adjudicated again, timing each :func:`judge.engine.adjudicate` call alone with
``time.perf_counter``: once with the orders as :class:`~judge.engine.orders.Order`
values, once as text in the short judge syntax (parsing included).  Each variant is run
``--repeat`` times (3) and the fastest pass is reported.  The replays are also checked to
give the positions recorded when the corpus was played.

``--compare`` also replays the corpus with the ``diplomacy`` package (AGPL, so never
imported here: it runs in its own virtual environment, in a separate process, from a JSON
copy of the corpus).  Set that environment up once with::

    python3 -m venv benchmarks/.venv-diplomacy
    benchmarks/.venv-diplomacy/bin/pip install diplomacy

(``benchmarks/.venv-diplomacy/`` is in ``.gitignore``.)  The replay script,
``benchmarks/diplomacy_replay.py``, times ``set_orders`` for every power plus
``process()`` per phase, and counts the phases where the package's result differs from
ours.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``judge`` and ``benchmarks`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.random_games import PhaseRecord, play_game
from judge.engine.adjudicator import adjudicate
from judge.engine.document import position_to_document
from judge.engine.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from judge.engine.position import Position

HERE = Path(__file__).resolve().parent
DIPLOMACY_PYTHON = HERE / ".venv-diplomacy" / "bin" / "python"
REPLAY_SCRIPT = HERE / "diplomacy_replay.py"
KINDS = {"M": "movement", "R": "retreat", "A": "adjustment"}

Corpus = list[list[PhaseRecord]]


def build_corpus(games: int, last_year: int) -> Corpus:
    """Play ``games`` seeded random games (seeds 1..games)."""
    return [play_game(seed, last_year) for seed in range(1, games + 1)]


# -- timing our engine ------------------------------------------------------------------


def _time_pass(corpus: Corpus, orders_of: Callable[[PhaseRecord], Any]) -> dict[str, float]:
    seconds = {k: 0.0 for k in KINDS.values()}
    clock = time.perf_counter
    for game in corpus:
        for record in game:
            orders = orders_of(record)
            position = record.position
            start = clock()
            adjudicate(position, orders)
            seconds[KINDS[record.phase[-1]]] += clock() - start
    return seconds


def _as_values(record: PhaseRecord) -> dict[str, list[Order]]:
    return {p: list(o) for p, o in record.orders.items()}


def _as_text(record: PhaseRecord) -> dict[str, list[str]]:
    return {p: list(t) for p, t in record.texts.items()}


def _state(position: Position) -> dict[str, Any]:
    doc = position_to_document(position)
    return {"phase": doc["phase"], "units": doc["units"], "dislodged": doc["dislodged"],
            "centers": doc["centers"]}  # fmt: skip


def time_engine(corpus: Corpus, repeat: int, text: bool) -> dict[str, Any]:
    """Replay the corpus ``repeat`` times; the fastest pass's figures.

    An untimed pass first checks that the replay gives the recorded positions and results
    and rejects no order.
    """
    orders_of = _as_text if text else _as_values
    records = [r for game in corpus for r in game]
    mismatches = 0
    for record in records:
        out = adjudicate(record.position, orders_of(record))
        if (
            _state(out.position) != _state(record.adjudication.position)
            or out.results != record.adjudication.results
            or out.rejected
        ):
            mismatches += 1
    best: dict[str, float] | None = None
    for _ in range(max(1, repeat)):
        seconds = _time_pass(corpus, orders_of)
        if best is None or sum(seconds.values()) < sum(best.values()):
            best = seconds
    assert best is not None
    counts = {k: 0 for k in KINDS.values()}
    for record in records:
        counts[KINDS[record.phase[-1]]] += 1
    return {"seconds": best, "phases": counts, "mismatches": mismatches}


# -- the diplomacy package's syntax -----------------------------------------------------


#: Our province abbreviations that the ``diplomacy`` package spells differently.
PACKAGE_NAMES = {"GOL": "LYO"}


def _loc(location: str) -> str:
    """A location in the package's spelling: ``stp/nc`` -> ``STP/NC``, ``gol`` -> ``LYO``."""
    province, slash, coast = location.upper().partition("/")
    return PACKAGE_NAMES.get(province, province) + slash + coast


def _unit(order: Order) -> str:
    assert order.unit_type is not None
    return f"{order.unit_type.value} {_loc(order.location)}"


def _target(unit_type: Any, location: str) -> str:
    return f"{unit_type.value} {_loc(location)}"


def to_diplomacy(order: Order, position: Position | None = None, *, retreat: str = "R") -> str:
    """``order`` in the syntax of the ``diplomacy`` package (``A PAR S A MAR - BUR``).

    Given the ``position``, a supported fleet on a split coast is named with its coast, as
    the package names units (``F BLA S F BUL/EC``, ``F SWE S F STP/SC - BOT``).
    ``retreat`` is the word between a retreating unit and its destination: the package's
    ``R``, or ``-`` for the judge, whose syntax reads ``R`` as *remove* (the PBEM judges'
    syntax: a retreat is ``<unit> <moves> <province>``, ``r`` a removal), so that
    ``A PAR R BUR`` is an error there.
    """

    def target_at(target: str) -> str:
        unit = position.units.get(target) if position is not None else None
        return unit.location if unit is not None else target

    match order:
        case Hold():
            return f"{_unit(order)} H"
        case Move(destination=dest, via_convoy=via):
            return f"{_unit(order)} - {_loc(dest)}" + (" VIA" if via else "")
        case SupportHold(target_type=tt, target=target):
            return f"{_unit(order)} S {_target(tt, target_at(target))}"
        case SupportMove(target_type=tt, target=target, destination=dest):
            return f"{_unit(order)} S {_target(tt, target_at(target))} - {_loc(dest)}"
        case Convoy(target_type=tt, target=target, destination=dest):
            return f"{_unit(order)} C {_target(tt, target)} - {_loc(dest)}"
        case Retreat(destination=dest):
            return f"{_unit(order)} {retreat} {_loc(dest)}"
        case Disband() | Remove():
            return f"{_unit(order)} D"
        case Build():
            return f"{_unit(order)} B"
        case Waive():
            return "WAIVE"
    raise ValueError(f"no diplomacy-package syntax for {order!r}")


def _package_state(position: Position) -> dict[str, Any]:
    """A position as a ``diplomacy`` package state (powers in upper case)."""
    powers = [p.upper() for p in position.map.powers]
    units: dict[str, list[str]] = {p: [] for p in powers}
    retreats: dict[str, dict[str, list[str]]] = {p: {} for p in powers}
    centres: dict[str, list[str]] = {p: [] for p in powers}
    for unit in position.units.values():
        units[unit.power.upper()].append(f"{unit.type.value} {_loc(unit.location)}")
    for entry in position.dislodged.values():
        unit = entry.unit
        text = f"{unit.type.value} {_loc(unit.location)}"
        units[unit.power.upper()].append(f"*{text}")
        retreats[unit.power.upper()][text] = [_loc(r) for r in entry.retreats]
    for centre, power in position.centres.items():
        centres[power.upper()].append(_loc(centre))
    return {"name": position.phase.code, "units": units, "retreats": retreats, "centers": centres}


def corpus_document(corpus: Corpus) -> dict[str, Any]:
    """The corpus as JSON for ``diplomacy_replay.py`` (see its docstring for the format)."""
    games = []
    for seed, game in enumerate(corpus, start=1):
        phases = [
            {
                "phase": record.phase,
                "state": _package_state(record.position),
                "orders": {
                    power.upper(): [to_diplomacy(o) for o in orders]
                    for power, orders in record.orders.items()
                },
            }
            for record in game
        ]
        final = _package_state(game[-1].adjudication.position)
        games.append({"seed": seed, "phases": phases, "final": final})
    return {"games": games}


def run_diplomacy(corpus: Corpus, repeat: int) -> dict[str, Any] | None:
    """Replay the corpus with the ``diplomacy`` package in its own venv; ``None`` if absent."""
    if not DIPLOMACY_PYTHON.exists():
        print(
            f"--compare: no {DIPLOMACY_PYTHON}; create it with\n"
            "  python3 -m venv benchmarks/.venv-diplomacy && "
            "benchmarks/.venv-diplomacy/bin/pip install diplomacy",
            file=sys.stderr,
        )
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "corpus.json"
        path.write_text(json.dumps(corpus_document(corpus)), encoding="utf-8")
        done = subprocess.run(
            [str(DIPLOMACY_PYTHON), str(REPLAY_SCRIPT), str(path), "--repeat", str(repeat)],
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode != 0:
        print(f"diplomacy replay failed:\n{done.stderr}", file=sys.stderr)
        return None
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# -- the whole `judge adjudicate --jsonl` process ----------------------------------------


def jsonl_corpus(corpus: Corpus) -> tuple[str, list[dict[str, Any]]]:
    """The corpus as ``judge adjudicate --jsonl`` input, one phase a line, the orders in the
    package's spelling (retreats written with ``-``, see :func:`to_diplomacy`); and, for
    each line, the position the recorded adjudication left (to check the output)."""
    lines: list[str] = []
    expected: list[dict[str, Any]] = []
    for game in corpus:
        for record in game:
            doc = position_to_document(record.position)
            doc["orders"] = {
                power: [to_diplomacy(o, retreat="-") for o in orders]
                for power, orders in record.orders.items()
            }
            lines.append(json.dumps(doc, separators=(",", ":")))
            expected.append(_state(record.adjudication.position))
    return "\n".join(lines) + "\n", expected


def _judge_command() -> list[str]:
    """How to start ``judge adjudicate --jsonl``: the console script beside this Python."""
    script = Path(sys.executable).with_name("judge")
    if script.exists():
        return [str(script), "adjudicate", "--jsonl"]
    code = "import sys; from judge.cli import main; sys.exit(main())"
    return [sys.executable, "-c", code, "adjudicate", "--jsonl"]


def _run_child(command: list[str], stdin: str) -> tuple[float, float, str]:
    """Run ``command`` on ``stdin``: wall seconds, its user+sys CPU seconds, its stdout."""
    # With its bytecode cache, as an installed judge runs (pip compiles it on install):
    # without, every start would compile the engine's source again.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        command, input=stdin, capture_output=True, text=True, check=False, env=env
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def time_process(corpus: Corpus, repeat: int) -> dict[str, Any]:
    """Time ``judge adjudicate --jsonl`` as a separate process on the whole corpus (best of
    ``repeat`` runs, by CPU time), and its start-up alone (the same command with empty
    input, best of ``repeat``); check every output line against the recorded result."""
    stdin, expected = jsonl_corpus(corpus)
    command = _judge_command()
    _run_child(command, "")  # a first start writes the bytecode cache; not counted
    runs = [_run_child(command, stdin) for _ in range(max(1, repeat))]
    wall, cpu, stdout = min(runs, key=lambda r: r[1])
    startups = [_run_child(command, "") for _ in range(max(1, repeat))]
    start_wall, start_cpu, _ = min(startups, key=lambda r: r[1])
    outputs = [json.loads(line) for line in stdout.splitlines()]
    mismatches = sum(
        1
        for out, want in zip(outputs, expected, strict=False)
        if "error" in out or out.get("rejected") or _doc_state(out) != want
    ) + abs(len(outputs) - len(expected))
    return {
        "wall": wall,
        "cpu": cpu,
        "startup_wall": start_wall,
        "startup_cpu": start_cpu,
        "phases": len(expected),
        "mismatches": mismatches,
        "command": " ".join(Path(c).name if i == 0 else c for i, c in enumerate(command)),
    }


def _doc_state(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: doc.get(k) for k in ("phase", "units", "dislodged", "centers")}


# -- report -----------------------------------------------------------------------------


def _figures(result: dict[str, Any]) -> dict[str, float]:
    seconds: dict[str, float] = result["seconds"]
    phases: dict[str, int] = result["phases"]
    total = sum(seconds.values())
    out = {"total_s": total, "phases_per_s": sum(phases.values()) / total if total else 0.0}
    for kind in KINDS.values():
        n = phases.get(kind, 0)
        out[f"{kind}_us"] = seconds.get(kind, 0.0) / n * 1e6 if n else 0.0
    return out


def _row(label: str, values: Sequence[str]) -> str:
    return f"  {label:<28}" + "".join(f"{v:>16}" for v in values)


def report(
    games: int,
    ours: dict[str, Any],
    text: dict[str, Any],
    theirs: dict[str, Any] | None,
    repeat: int,
    last_year: int,
    process: dict[str, Any] | None = None,
) -> None:
    """Print the figures, side by side with the diplomacy package's when there are any."""
    phases: dict[str, int] = ours["phases"]
    print(
        f"corpus: {games} seeded random games (seeds 1-{games}), S1901M to W{last_year}A or a solo"
    )
    print(
        "phases adjudicated: "
        + ", ".join(f"{phases[k]} {k}" for k in KINDS.values())
        + f" ({sum(phases.values())} in all)"
    )
    columns = [("judge (values)", _figures(ours)), ("judge (text)", _figures(text))]
    if theirs is not None:
        columns.append((theirs.get("engine", "diplomacy"), _figures(theirs)))
    print(_row("", [c[0] for c in columns]))
    print(_row("phases per second", [f"{c[1]['phases_per_s']:.0f}" for c in columns]))
    print(_row("total time (s)", [f"{c[1]['total_s']:.3f}" for c in columns]))
    for kind in KINDS.values():
        print(_row(f"mean {kind} phase (us)", [f"{c[1][kind + '_us']:.1f}" for c in columns]))
    if theirs is not None:
        speed = columns[0][1]["phases_per_s"] / columns[2][1]["phases_per_s"]
        speed_text = columns[1][1]["phases_per_s"] / columns[2][1]["phases_per_s"]
        move = columns[2][1]["movement_us"] / columns[0][1]["movement_us"]
        print(
            f"ratio judge/diplomacy, phases per second: {speed:.1f}x (Order values), "
            f"{speed_text:.1f}x (text); movement phases: {move:.1f}x"
        )
        print(
            f"phases where the diplomacy package's result differs from ours: "
            f"{theirs['disagreements']}; orders it refused: {theirs['refused_orders']}"
        )
        for example in theirs.get("disagreement_examples", [])[:5]:
            print(f"  differs: {example}")
        for example in theirs.get("refused_examples", [])[:5]:
            print(f"  refused: {example}")
    if process is not None:
        _report_process(process, theirs)
    bad = ours["mismatches"] + text["mismatches"]
    print(f"replays that did not reproduce the recorded result: {bad}")
    print(
        f"measured: time.perf_counter around each adjudicate() call only (position and orders "
        f"prepared beforehand), best of {repeat} passes, garbage collector on with the corpus "
        f"frozen out of it (gc.freeze), one process; "
        f"{platform.python_implementation()} {platform.python_version()} on {platform.machine()}"
    )
    if theirs is not None:
        print(
            f"diplomacy package: set_orders() for every power + process() per phase, best of "
            f"{theirs.get('repeat', 1)} passes, its own venv ({theirs.get('python', '?')}), "
            "a separate process; diverging states re-synchronised between phases, untimed"
        )


def _report_process(process: dict[str, Any], theirs: dict[str, Any] | None) -> None:
    """The whole-process figures, and their ratios to the package's when there are any."""
    n = process["phases"]
    wall, cpu = process["wall"], process["cpu"]
    s_wall, s_cpu = process["startup_wall"], process["startup_cpu"]
    print(f"whole process: `{process['command']}` on the {n} phases as JSON lines, the orders")
    print("  in the package's spelling (retreats with '-'), output checked against the recorded")
    print("  results; the judge's bytecode cache on (written by a first, untimed start)")
    rows = [
        ("start-up included", wall, cpu),
        ("start-up excluded", wall - s_wall, cpu - s_cpu),
    ]
    print(_row("", ["wall (s)", "CPU (s)", "phases/s (CPU)"]))
    for label, w, c in rows:
        print(_row(label, [f"{w:.3f}", f"{c:.3f}", f"{n / c:.0f}" if c > 0 else "-"]))
    print(_row("start-up alone", [f"{s_wall:.3f}", f"{s_cpu:.3f}", ""]))
    print(f"  output lines that differ from the recorded result: {process['mismatches']}")
    if theirs is None:
        return
    both = sum(theirs["seconds"].values())
    alone = sum(theirs["process_seconds"].values())
    both_cpu = sum(theirs["cpu_seconds"].values())
    alone_cpu = sum(theirs["process_cpu_seconds"].values())
    print(
        f"  diplomacy package, same phases (its import and JSON loading not included):\n"
        f"    set_orders + process(): {both:.3f} s wall, {both_cpu:.3f} s CPU; "
        f"process() alone: {alone:.3f} s wall, {alone_cpu:.3f} s CPU"
    )
    print("  ratio package/judge process (how many times faster the whole judge process is):")
    print(_row("", ["vs set+process", "vs process()"]))
    for label, w, c in rows:
        if w > 0 and c > 0:
            print(_row(f"{label}, wall", [f"{both / w:.2f}x", f"{alone / w:.2f}x"]))
            print(_row(f"{label}, CPU", [f"{both_cpu / c:.2f}x", f"{alone_cpu / c:.2f}x"]))


def main(argv: list[str] | None = None) -> int:
    """Build the corpus, time the replays, print the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games in the corpus (20)")
    parser.add_argument("--last-year", type=int, default=1930, help="last year played (1930)")
    parser.add_argument("--repeat", type=int, default=3, help="timed passes, best kept (3)")
    parser.add_argument(
        "--compare", action="store_true", help="also replay with the diplomacy package"
    )
    parser.add_argument(
        "--process",
        action="store_true",
        help="also time the whole `judge adjudicate --jsonl` process (implied by --compare)",
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    corpus = build_corpus(args.games, args.last_year)
    print(f"corpus built in {time.perf_counter() - started:.1f} s (not timed below)")
    # The corpus is a large heap of long-lived objects that the garbage collector would
    # otherwise scan again and again; the replay script does the same with its copy.
    gc.collect()
    gc.freeze()
    ours = time_engine(corpus, args.repeat, text=False)
    text = time_engine(corpus, args.repeat, text=True)
    theirs = run_diplomacy(corpus, args.repeat) if args.compare else None
    process = time_process(corpus, args.repeat) if args.compare or args.process else None
    report(args.games, ours, text, theirs, args.repeat, args.last_year, process)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
