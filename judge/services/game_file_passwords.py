"""The passwords a game file sets, applied only when the file changed them since it was
last applied, and kept as argon2 hashes only (never readable): the observers' password
and a seat's takeover password (:mod:`judge.services.game_files` applies the rest)."""

from __future__ import annotations

from typing import Any

from judge.config import GameConfig
from judge.db.models import Game, Player
from judge.services.passwords import hash_password, verify_password

__all__ = ["apply_observer_password", "apply_takeover", "same_password"]


def same_password(recorded: str | None, password: str | None) -> bool:
    """Whether the file's ``password`` is the one whose hash was ``recorded``."""
    if recorded is None or password is None:
        return recorded is None and password is None
    return verify_password(recorded, password)


def apply_observer_password(
    game: Game, config: GameConfig, applied: dict[str, Any], changes: list[str]
) -> dict[str, Any]:
    """Apply the observers' password if the file changed it (kept as a hash only, never
    readable); the new record of it."""
    recorded = (applied.get("observers") or {}).get("password")
    if same_password(recorded, config.observer_password):
        return {"password": recorded}
    if config.observer_password is None:
        game.observer_password_hash = None
        changes.append("removed the observers' password")
        return {"password": None}
    hashed = hash_password(config.observer_password)
    game.observer_password_hash = hashed
    changes.append("set the observers' password")
    return {"password": hashed}


def apply_takeover(
    player: Player, recorded: str | None, takeover: str | None, changes: list[str]
) -> str | None:
    """Set the seat's takeover password when the file's ``takeover`` changed since it was
    last applied (``recorded``: its hash then); the hash to record.  A takeover password
    the file no longer names stays (removing a key changes nothing), and one the game
    master set by mail since stays unless the file's changes."""
    if same_password(recorded, takeover) or takeover is None:
        return recorded if takeover is not None else None
    player.takeover_hash = hash_password(takeover)
    changes.append(f"{player.power}: takeover password set")
    return player.takeover_hash
