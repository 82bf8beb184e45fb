"""The game master's clock: a pause, a resumption, a deadline moved, a grace changed;
each change made to the game and mailed to everyone still following it
(:mod:`judge.services.mailings.schedule`).  The commands of
:mod:`judge.commands.master` read the mail's words and call these."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from sqlalchemy.orm import Session

from judge.config import deadline_to_json, settings_to_json
from judge.db.models import Game, GameStatus
from judge.engine.phases import Phase, PhaseKind
from judge.services import mailings
from judge.services.context import Judge
from judge.services.deadlines import next_deadline
from judge.services.errors import ServiceError
from judge.services.game_settings import game_settings, game_zone
from judge.services.games import current_position, set_deadline

__all__ = ["move_deadline", "pause_game", "resume_game", "set_grace"]


def pause_game(session: Session, judge: Judge, game: Game, now: datetime) -> None:
    """Stop ``game``'s clock, and tell everyone following it."""
    if game.status != GameStatus.ACTIVE:
        raise ServiceError(f"game {game.name} is {game.status}, not active")
    game.status = GameStatus.PAUSED
    mailings.send_paused(session, judge, game, now)


def resume_game(session: Session, judge: Judge, game: Game, now: datetime) -> bool:
    """Start ``game``'s clock again, and tell everyone following it; whether the deadline
    was renewed (it passed while the game was paused: the players get a full phase)."""
    if game.status != GameStatus.PAUSED:
        raise ServiceError(f"game {game.name} is not paused")
    game.status = GameStatus.ACTIVE
    renewed = game.deadline is not None and game.deadline <= now
    if renewed:
        kind = current_position(session, game).phase.kind
        set_deadline(
            session, game, next_deadline(now, kind, game_settings(game), game_zone(game, judge))
        )
    mailings.send_resumed(session, judge, game, now, fresh=renewed)
    return renewed


def move_deadline(
    session: Session, judge: Judge, game: Game, when: datetime, now: datetime
) -> bool:
    """Set ``game``'s deadline to ``when``; whether anyone was told (a game not started
    has no phase to tell of)."""
    if when <= now:
        raise ServiceError("the new deadline is in the past")
    set_deadline(session, game, when)
    if game.phase is None:
        return False
    mailings.send_new_deadline(session, judge, game, now, by_master=True)
    return True


def set_grace(
    session: Session, judge: Judge, game: Game, hours: float, now: datetime
) -> tuple[PhaseKind, float]:
    """Set the grace of the phases of ``game``'s current kind to ``hours``, and tell
    everyone following it; the kind and the grace it had (the same ``hours``: nothing
    changed, nobody told)."""
    if game.status == GameStatus.FINISHED:
        raise ServiceError(f"game {game.name} is over: its grace no longer matters")
    kind = Phase.parse(game.phase).kind if game.phase else PhaseKind.MOVEMENT
    settings = game_settings(game)
    before = settings.deadline(kind)
    if hours == before.grace:
        return kind, before.grace
    deadlines = settings_to_json(settings)["deadlines"]
    deadlines[kind.word.lower()] = deadline_to_json(replace(before, grace=hours))
    # Only the deadlines are written: the other keys stay as they are stored.
    game.settings = {**(game.settings or {}), "deadlines": deadlines}
    mailings.send_grace(session, judge, game, now, kind=kind, grace=hours, old_grace=before.grace)
    return kind, before.grace
