"""What a deadline burst costs the judge: many games due at the same moment, processed
one transaction each as ``judge serve`` does, with the map picture and without it.

    python benchmarks/bench_deadline.py [--games 200] [--maps both|on|off]

In process, on a SQLite file in a temporary directory: ``--games`` games of seven
players are loaded and started (their game-start mail queued), then the clock is moved
past their common first deadline and every due game is processed (``due_games``, then
``process_game`` in its own transaction, the orders missing so every unit holds).  The
results mails are queued, not sent.  Prints, for each setting of the games' ``maps``
key, the time to start them and the time to process the burst (total, and per game),
and how many pictures were stored; nothing is asserted (the tests do that).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import func, select

from judge.config import JudgeSettings
from judge.db.models import OutboundMessage, Picture
from judge.runtime.bootstrap import open_app
from judge.services.games import due_games, process_game

if __package__ in (None, ""):  # run as a script: the project's root on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.many_games import DUE, make_games


def run(games: int, maps: bool) -> dict[str, float]:
    """Start ``games`` games and process them all at one deadline; the figures."""
    with tempfile.TemporaryDirectory() as tmp:
        var = Path(tmp) / "var"
        settings = JudgeSettings(
            name="BENCH",
            address="judge@example.org",
            var_dir=var,
            database_url=f"sqlite:///{var / 'judge.db'}",
        )
        app = open_app(settings)
        started = time.perf_counter()
        make_games(app, games, Path(tmp) / "games", maps=maps)
        start_s = time.perf_counter() - started
        started = time.perf_counter()
        with app.sessions() as session:
            due = due_games(session, DUE)
        for name, phase in due:
            with app.sessions() as session, session.begin():
                process_game(session, app.judge, name, DUE, phase=phase)
        burst_s = time.perf_counter() - started
        with app.sessions() as session:
            pictures = session.scalar(select(func.count()).select_from(Picture)) or 0
            mails = session.scalar(select(func.count()).select_from(OutboundMessage)) or 0
    return {
        "start_s": start_s,
        "burst_s": burst_s,
        "due": float(len(due)),
        "pictures": float(pictures),
        "mails": float(mails),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--maps", choices=("both", "on", "off"), default="both")
    args = parser.parse_args(argv)
    settings = {"both": (False, True), "on": (True,), "off": (False,)}[args.maps]
    print(
        f"{'maps':<5} {'games':>6} {'start s':>8} {'burst s':>8} {'ms/game':>8} "
        f"{'pictures':>9} {'mails':>7}"
    )
    for maps in settings:
        f = run(args.games, maps)
        print(
            f"{'on' if maps else 'off':<5} {int(f['due']):>6} {f['start_s']:>8.1f} "
            f"{f['burst_s']:>8.2f} {1000 * f['burst_s'] / max(f['due'], 1):>8.1f} "
            f"{int(f['pictures']):>9} {int(f['mails']):>7}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
