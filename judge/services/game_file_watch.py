"""Watching the game files: which files are new or changed since they were loaded (looked
at by ``judge serve`` at SIGHUP and every 30 seconds, reread only when the file system
says a file changed), loading the new
ones and applying the edits (:mod:`judge.services.game_files`), and refusing a bad edit
once, with its error sent to the game master."""

from __future__ import annotations

import hashlib
import time
from datetime import datetime
from pathlib import Path

from sqlalchemy.orm import Session

from judge.config import (
    ConfigError,
    load_game_config,
)
from judge.db import queries
from judge.db.models import Game
from judge.services import mailings
from judge.services.context import Judge
from judge.services.errors import ServiceError
from judge.services.game_files import legacy_applied, load_game


def reload_configs(session: Session, judge: Judge, now: datetime) -> list[str]:
    """Apply every game file that changed since it was last loaded.

    A good edit is applied (a new deadline is mailed to the players); a bad one is refused
    with its error logged and sent to the game master once, and the game is unchanged.
    Returns a line per file handled, for the log.
    """
    report: list[str] = []
    for game_id, config_path, config_digest, legacy in queries.game_file_states(session):
        path = Path(config_path)
        digest = _file_digest(path)
        if digest is None:
            continue  # a file being rewritten, or moved away: try again later
        if digest == config_digest and not legacy:
            continue  # unchanged (the common case: no game row is loaded for it)
        # Read afresh once no look is under way, as load_game reads it below: read
        # before a look that load_game then waits for, ``before`` would be the old
        # phase's deadline, and the next phase's taken for the master's new one.
        game = queries.game_past_looks(session, game_id)
        if game is None:
            continue
        settings = dict(game.settings or {})
        if digest == game.config_digest and game.file_applied is None:
            if _UNUSABLE_LEGACY.get(path) != digest:
                _record_legacy(session, judge, game, path, digest)
            continue
        if digest in (game.config_digest, settings.get("rejected_config")):
            continue
        before = game.deadline
        try:
            with session.begin_nested():
                loaded = load_game(session, judge, path, now)
        except ConfigError as err:
            settings["rejected_config"] = digest
            game.settings = settings
            report.append(f"{game.name}: edit refused: {err}")
            mailings.send_edit_refused(session, judge, game, path, err, now)
            continue
        report.append(f"{game.name}: reloaded ({', '.join(loaded.changes) or 'no changes'})")
        if game.deadline != before and game.deadline is not None and game.phase:
            mailings.send_new_deadline(session, judge, game, now, by_master=True)
    return report


def _record_legacy(session: Session, judge: Judge, game: Game, path: Path, digest: str) -> None:
    """Record an unchanged file of a game loaded by an older judge as applied, quietly, so
    that the game master's next edit is compared with it (see :func:`legacy_applied`)."""
    try:
        config = load_game_config(path)
    except ConfigError:
        config = None  # handled (refused and reported) when the file changes
    if config is None or config.name != game.name:
        # Not parsed again at every look: only once the file changes.
        _UNUSABLE_LEGACY[path] = digest
        return
    game.file_applied = legacy_applied(session, game, config, judge)


#: Unchanged files of games loaded by an older judge that this judge cannot use, by path,
#: with the digest found so.
_UNUSABLE_LEGACY: dict[Path, str] = {}


def load_new_games(session: Session, judge: Judge, games_dir: Path, now: datetime) -> list[str]:
    """Load every game file in ``games_dir`` that no game was loaded from yet.

    A bad file is reported (a line for the log) and tried again only once it changes.
    """
    if not games_dir.is_dir():
        return []
    try:
        folder_mtime = games_dir.stat().st_mtime_ns
    except OSError:
        return []
    if _FOLDERS_SEEN.get(games_dir) == folder_mtime and not _refused_changed():
        # No file added, removed or renamed since the last complete look, and no refused
        # file edited in place: nothing new to load (no look at every file).
        return []
    complete = True
    known = {Path(p).resolve() for p in queries.game_file_paths(session)}
    report: list[str] = []
    for path in sorted(games_dir.glob("*.toml")):
        resolved = path.resolve()
        if resolved in known:
            continue
        digest = _file_digest(resolved)
        if digest is None:
            complete = False  # unreadable now: look again next time
            continue
        if _REFUSED_FILES.get(resolved) == digest:
            continue
        try:
            with session.begin_nested():
                loaded = load_game(session, judge, resolved, now)
        except (ConfigError, ServiceError) as err:
            _REFUSED_FILES[resolved] = digest
            report.append(f"{path.name}: not loaded: {err}")
            continue
        report.append(f"{path.name}: loaded game {loaded.game} ({', '.join(loaded.changes)})")
    # A folder changed within the last second may change again within its clock's tick
    # without its time moving: such a look does not count as complete.
    if complete and time.time_ns() - folder_mtime > 1_000_000_000:
        _FOLDERS_SEEN[games_dir] = folder_mtime
    return report


#: Game files found bad, by path, with the content digest that was refused.
_REFUSED_FILES: dict[Path, str] = {}
#: Game folders by path, with their modification time at the last complete look.
_FOLDERS_SEEN: dict[Path, int] = {}


def _refused_changed() -> bool:
    """Whether a refused game file changed (it is tried again)."""
    return any(_file_digest(path) != digest for path, digest in _REFUSED_FILES.items())


#: path -> (modification time, size, sha256): the judge looks at every game file now and
#: then, and rereads one only when the file system says it changed.
_DIGESTS: dict[Path, tuple[int, int, str]] = {}


def _file_digest(path: Path) -> str | None:
    """The sha256 of a file's bytes, or ``None`` if it cannot be read now."""
    try:
        stat = path.stat()
        known = _DIGESTS.get(path)
        if known is not None and known[:2] == (stat.st_mtime_ns, stat.st_size):
            return known[2]
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
    _DIGESTS[path] = (stat.st_mtime_ns, stat.st_size, digest)
    return digest
