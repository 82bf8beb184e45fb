"""A game's clock: the game master's pause, resumption, deadline moved and grace changed,
and a player's absence that moves the deadline; each change made to the game and mailed
to everyone still following it (:mod:`judge.services.mailings.schedule`).  The commands
of :mod:`judge.commands.master` and SET ABSENCE read the mail's words and call these."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from judge.config import deadline_to_json, settings_to_json
from judge.db.models import Game, GameStatus, Player
from judge.engine.phases import Phase, PhaseKind
from judge.presenters import format_deadline
from judge.services import mailings
from judge.services.context import Judge
from judge.services.deadlines import next_deadline
from judge.services.errors import ServiceError
from judge.services.game_settings import game_settings, game_zone
from judge.services.games import current_position, respect_absences, set_deadline

__all__ = [
    "MAX_ABSENCES",
    "MAX_ABSENCE_DAYS",
    "declare_absence",
    "move_deadline",
    "pause_game",
    "resume_game",
    "set_grace",
]

#: The longest absence a player may declare, in days (house limit).
MAX_ABSENCE_DAYS = 14

#: How many absences a player may declare in one game.
MAX_ABSENCES = 3


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


def declare_absence(
    session: Session,
    judge: Judge,
    game: Game,
    player: Player,
    start: datetime,
    end: datetime,
    now: datetime,
) -> bool:
    """Note ``player``'s absence from ``start`` to ``end``, within the house limits;
    whether it moved the current deadline (then never silently: everyone following the
    game gets the new deadline and why)."""
    if end <= start or end <= now:
        raise ServiceError("the absence must end after it starts, and in the future")
    if end - start > timedelta(days=MAX_ABSENCE_DAYS):
        raise ServiceError(f"an absence may last at most {MAX_ABSENCE_DAYS} days")
    if player.absences_used >= MAX_ABSENCES:
        raise ServiceError(f"you have used all {MAX_ABSENCES} absences allowed in a game")
    player.absence_from, player.absence_to = start, end
    player.absences_used += 1
    moved = respect_absences(session, game) and game.deadline is not None
    if moved:
        reason = _absence_reason(game, player.power, start, end, judge)
        mailings.send_new_deadline(session, judge, game, now, reason=reason)
    return moved


def _absence_reason(game: Game, power: str, start: datetime, end: datetime, judge: Judge) -> str:
    """Why the deadline moved, in the game's zone (no power named in an anonymous game)."""
    zone = game_zone(game, judge)
    who = "A player" if game_settings(game).anonymous else power
    return (
        f"{who} has said (SET ABSENCE) they will be away from {format_deadline(start, zone)} "
        f"to {format_deadline(end, zone)}, and the deadline fell in that time: it moves to "
        "the end of the absence."
    )
