"""Many running games on one database, made quickly: the benchmarks' common setup.

Each game is loaded from a game file and started by the judge's own services, as a
game master's file would be, so the rows are the real ones.  Only the password hashing
is shortened: every player of a benchmark has the same password, and argon2 (about
20 ms a hash, on purpose) would otherwise be most of the setup; :func:`hash_once` makes
the judge hash it once per process.  Verification is untouched.

:data:`DISTINCT_GAME_FILE` gives every player of every game an address and a password of
its own (:func:`player_address`, :func:`player_password`), hashed once each: for a
benchmark of first sign-ons, where one hash shared by all would be verified once.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from judge.runtime.bootstrap import App
from judge.services import passwords
from judge.services.game_files import load_game
from judge.services.games import start_game

#: The password of every benchmark player.
PASSWORD = "bench-pw"

GAME_FILE = """\
[game]
name = "{name}"
rules = "2023"
timezone = "UTC"
maps = {maps}

[deadlines]
movement = {{ hours = 48, at = "20:00" }}
retreat = 24
adjustment = 24

[players]
Austria = "austria@example.org"
England = "england@example.org"
France = "france@example.org"
Germany = "germany@example.org"
Italy = "italy@example.org"
Russia = "russia@example.org"
Turkey = "turkey@example.org"
"""

#: A game file whose players each have their own address and password (both made from
#: the game's name and the power: :func:`player_address`, :func:`player_password`).
DISTINCT_GAME_FILE = (
    GAME_FILE.split("[players]")[0]
    + "[players]\n"
    + "".join(
        f'{power} = {{{{ address = "{power.lower()}.{{name}}@example.org", '
        f'password = "{{name}}-{power.lower()}-pw" }}}}\n'
        for power in ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")
    )
)


def player_address(game: str, power: str) -> str:
    """The address of ``power`` in ``game`` under :data:`DISTINCT_GAME_FILE`."""
    return f"{power.lower()}.{game}@example.org"


def player_password(game: str, power: str) -> str:
    """The password of ``power`` in ``game`` under :data:`DISTINCT_GAME_FILE`."""
    return f"{game}-{power.lower()}-pw"


#: When the benchmark games start, and a moment past every first deadline.
START = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
DUE = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


class _HashOnce:
    """An argon2 hasher that hashes each password once per process (verify unchanged)."""

    def __init__(self, hasher: Any) -> None:
        self.hasher = hasher
        self.hashes: dict[str, str] = {}

    def hash(self, password: str) -> str:
        if password not in self.hashes:
            self.hashes[password] = self.hasher.hash(password)
        return self.hashes[password]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.hasher, name)


def hash_once() -> None:
    """Make this process hash each password once (benchmark setup only)."""
    if not isinstance(passwords._HASHER, _HashOnce):
        passwords._HASHER = _HashOnce(passwords._HASHER)  # type: ignore[assignment]


def make_games(
    app: App,
    count: int,
    files: Path,
    *,
    maps: bool = False,
    start: datetime = START,
    game_file: str = GAME_FILE,
    progress: Callable[[int], None] | None = None,
) -> list[str]:
    """Load and start ``count`` games (``g00000``...) from files written in ``files``,
    one transaction each; their names.  ``game_file`` is formatted with ``name`` and
    ``maps``.  Each password is hashed once meanwhile (:func:`hash_once`); the hasher
    is put back after, so that a test process that made its games this way hashes as
    the judge does afterwards (one hash, one salt, per password set)."""
    hasher = passwords._HASHER
    hash_once()
    try:
        return _make_games(app, count, files, maps, start, game_file, progress)
    finally:
        passwords._HASHER = hasher


def _make_games(
    app: App,
    count: int,
    files: Path,
    maps: bool,
    start: datetime,
    game_file: str,
    progress: Callable[[int], None] | None,
) -> list[str]:
    """:func:`make_games`, with the hasher already set."""
    app.judge.make_password = lambda: PASSWORD
    files.mkdir(parents=True, exist_ok=True)
    names = []
    for n in range(count):
        name = f"g{n:05d}"
        path = files / f"{name}.toml"
        path.write_text(game_file.format(name=name, maps="true" if maps else "false"))
        with app.sessions() as session, session.begin():
            load_game(session, app.judge, path, start)
            start_game(session, app.judge, name, start)
        names.append(name)
        if progress is not None:
            progress(n + 1)
    return names
