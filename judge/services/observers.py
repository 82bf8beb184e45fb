"""Observers: an address that watches a game (``OBSERVE``, ``SIGNON O<game>``) gets its
public mail (the start, the results, the news of deadlines and seats), never a player's
own, and can never order; ``RESIGN`` ends watching.

Who may watch is the game file's ``observers`` ("open", "password" or "none", see
:class:`judge.config.Observers`).  A wrong observers' password counts in the sign-on
lockout like any seat's, under the seat ``"O"`` (:mod:`judge.services.signons`).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from judge.config import Observers
from judge.db import queries
from judge.db.models import Game, GameStatus, Observer, PlayerStatus
from judge.presenters import format_deadline, position_report
from judge.render import fill
from judge.services.context import Judge
from judge.services.errors import ServiceError
from judge.services.game_settings import game_settings, game_zone
from judge.services.games import current_position
from judge.services.passwords import verify_password
from judge.services.signons import SIGNON_MAX_FAILURES, count_wrong, seat_guard
from judge.services.unit_of_work import UnitOfWork

__all__ = [
    "OBSERVER_SEAT",
    "PasswordRefused",
    "already",
    "observe",
    "observer_of",
    "stop_watching",
    "stopped",
    "welcome",
]

#: The seat observers' wrong passwords are counted under (a power's initial never is O).
OBSERVER_SEAT = "O"


class PasswordRefused(ServiceError):
    """The observers' password was wrong (or not checked, the seat being locked)."""


def observer_of(session: Session, game: Game, address: str) -> Observer | None:
    """The row of ``address`` watching ``game``, if it does."""
    return next((o for o in queries.observers_of(session, game.id) if o.address == address), None)


def observe(
    session: Session,
    judge: Judge,
    work: UnitOfWork,
    game: Game,
    password: str | None,
    *,
    sender: str,
    now: datetime,
) -> tuple[Observer, bool]:
    """``sender`` watches ``game`` from now on: its observer row, and whether it is new.

    An address that already watches is signed on again without a password (it was let
    in; a forged sender gains nothing, since the game's mail goes to that address).  A
    new one is refused, with ServiceError, for a game that is over or takes no
    observers, for its game master and its players (who get its mail already), and
    without the observers' password where the game file asks for one.
    """
    watching = observer_of(session, game, sender)
    if watching is not None:
        return watching, False
    if game.status == GameStatus.FINISHED:
        raise ServiceError(
            f"game {game.name} is over and takes no new observers; HISTORY {game.name} "
            "shows how it went"
        )
    if game.master_address == sender:
        raise ServiceError(
            f"you are the game master of {game.name} and get all of its mail already"
        )
    for player in queries.players_of(session, game.id, not_status=PlayerStatus.RESIGNED):
        if player.address == sender:
            raise ServiceError(f"you play {player.power} in {game.name} and get its mail already")
    policy = game_settings(game).observers
    if policy is Observers.NONE:
        raise ServiceError(f"game {game.name} does not allow observers")
    if policy is Observers.PASSWORD:
        _check_password(session, judge, work, game, password, now)
    observer = Observer(game_id=game.id, address=sender, created_at=now)
    session.add(observer)
    session.flush()
    return observer, True


def stop_watching(session: Session, observer: Observer) -> None:
    """``observer`` watches no more: its row goes."""
    session.delete(observer)


def stopped(game: Game) -> str:
    """The answer to an observer's RESIGN."""
    return fill(
        f"You no longer watch {game.name}: the judge sends you none of its mail from now "
        f"on. OBSERVE {game.name} watches it again."
    )


def already(game: Game) -> str:
    """The answer to the sign-on of an address that watches ``game`` already."""
    return f"You watch {game.name} already; you are signed on as its observer."


def welcome(session: Session, judge: Judge, game: Game) -> list[str]:
    """The answer to a new observer, a paragraph each: what an observer gets, the game's
    phase, deadline and position, and how to stop."""
    paragraphs = [
        fill(
            f"You now watch {game.name}. As an observer you get the game's public mail: "
            "its start, the results of every phase and the news of deadlines, pauses and "
            "seats; never a player's own mail. You cannot give orders."
        )
    ]
    if game.phase is None:
        paragraphs.append(
            fill(
                f"Game {game.name} has not started yet: you will get its game-start mail "
                "when it does."
            )
        )
    elif game.status in (GameStatus.ACTIVE, GameStatus.PAUSED):
        position = current_position(session, game)
        zone = game_zone(game, judge)
        deadline = format_deadline(game.deadline, zone) if game.deadline else "none set"
        paused = " (the game is paused)" if game.status == GameStatus.PAUSED else ""
        paragraphs.append(
            fill(
                f"The phase being played is {position.phase.describe()}{paused}. The "
                f"deadline for orders is {deadline}."
            )
        )
        paragraphs.append(position_report(position))
    paragraphs.append(
        fill(f"To stop watching, send OBSERVE {game.name} and, on the next line, RESIGN.")
    )
    return paragraphs


def _check_password(
    session: Session,
    judge: Judge,
    work: UnitOfWork,
    game: Game,
    password: str | None,
    now: datetime,
) -> None:
    """Raise ServiceError unless ``password`` is the game's observers' password; a
    wrong one counts towards the lockout of seat :data:`OBSERVER_SEAT` (one count for
    every address: only an address not yet watching is ever asked)."""
    if password is None:
        raise ServiceError(
            f"game {game.name} asks observers for a password: write "
            f"'OBSERVE {game.name} <password>', with the password its game master gave you"
        )
    guard = seat_guard(session, work, game, OBSERVER_SEAT, False)
    if guard is not None and guard.locked_until is not None and guard.locked_until > now:
        until = format_deadline(guard.locked_until, game_zone(game, judge))
        raise PasswordRefused(
            f"not checked: after {SIGNON_MAX_FAILURES} wrong observers' passwords for "
            f"{game.name} within an hour, new observers are refused until {until}; "
            "send it again after then"
        )
    if verify_password(game.observer_password_hash or "", password, work.verdicts):
        return
    count_wrong(session, work, game, OBSERVER_SEAT, False, guard, now)
    raise PasswordRefused(
        f"wrong observers' password for {game.name}: it is the one its game master gave you"
    )
