"""The mail about a game's seats (house rules 4.6): a seat that opens (a resignation, an
ejection), a new player who takes one over, and the game master's changes to a seat
(``EJECT``, ``SET ADDRESS <power>``).  The news goes to :attr:`Audience.NEWS`, less the
readers who get a mail of their own about it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.orm import Session

from judge.db.models import Game, Player
from judge.engine.position import Position
from judge.presenters import format_deadline, phase_heading, position_report
from judge.services.audience import Audience, Recipient, recipient_of, recipients
from judge.services.context import Judge
from judge.services.game_settings import game_settings, game_zone
from judge.services.mailings.common import own_zone, queue, render, signon_line

__all__ = [
    "send_ejected",
    "send_new_address",
    "send_seat_open",
    "send_seat_taken",
    "send_takeover",
]


def _is_master(reader: Recipient) -> bool:
    return reader.power is None and not reader.observer


def _reader_name(reader: Recipient) -> str:
    """How a news mail greets its reader."""
    if reader.power is not None:
        return reader.power
    return "the observers" if reader.observer else "the game master"


def send_seat_open(
    session: Session,
    judge: Judge,
    game: Game,
    player: Player,
    now: datetime,
    *,
    ejected: bool,
    also: str | None = None,
) -> None:
    """To everyone still following the game (``all/seat_open.txt.j2``): ``player``'s
    seat is open, because its player resigned or (``ejected``) the game master ejected
    them.  Not to ``player`` (answered, or told by :func:`send_ejected`), nor, for a
    resignation, to the game master (``gm/player_resigned.txt.j2``); ``also``: an
    address told besides (the registered address of a player who resigned from
    another)."""
    readers = [
        reader
        for reader in recipients(session, game, Audience.NEWS, judge)
        if reader.player_id != player.id and (ejected or not _is_master(reader))
    ]
    if also is not None and all(reader.address != also for reader in readers):
        readers.append(recipient_of(game, player, judge, also))
    for reader in readers:
        mail = render(
            judge, "all/seat_open.txt.j2", game,
            reader=_reader_name(reader),
            power=player.power,
            ejected=ejected,
            master_address=game.master_address,
        )  # fmt: skip
        queue(session, judge, game, reader, mail, "notice", now)


def send_ejected(session: Session, judge: Judge, game: Game, player: Player, now: datetime) -> None:
    """To the player the game master ejected, at their address (``player/ejected.txt.j2``):
    their password no longer signs on, their orders were dropped."""
    mail = render(
        judge, "player/ejected.txt.j2", game,
        power=player.power,
        phase_code=game.phase,
        master_address=game.master_address,
    )  # fmt: skip
    queue(session, judge, game, recipient_of(game, player, judge), mail, "notice", now)


def send_takeover(
    session: Session,
    judge: Judge,
    game: Game,
    player: Player,
    now: datetime,
    *,
    position: Position,
    order_lines: Sequence[str],
    missing_lines: Sequence[str],
    held_over: float | None,
) -> None:
    """To the new player of ``player``'s seat (``player/takeover.txt.j2``): the current
    phase and position, their orders so far, the deadline (moved ``held_over`` hours by
    the hold-over rule, or None)."""
    assert game.deadline is not None
    reader = recipient_of(game, player, judge)
    mail = render(
        judge, "player/takeover.txt.j2", game,
        variant="Standard",
        judge_address=judge.settings.address,
        power=player.power,
        phase_code=position.phase.code,
        phase_text=position.phase.describe(),
        phase_kind=position.phase.kind.value,
        deadline_game=format_deadline(game.deadline, game_zone(game, judge)),
        deadline_player=own_zone(judge, game, reader, game.deadline),
        held_over=_hours(held_over),
        heading=phase_heading(position.phase.kind.word, position.phase, game.name, game.seq),
        order_lines=list(order_lines),
        missing_lines=list(missing_lines),
        signon_line=signon_line(game, player.power),
        master_address=game.master_address,
        position_text=position_report(position),
    )  # fmt: skip
    queue(session, judge, game, reader, mail, "takeover", now)


def send_seat_taken(
    session: Session,
    judge: Judge,
    game: Game,
    player: Player,
    now: datetime,
    *,
    held_over: float | None,
) -> None:
    """To everyone still following the game but the new player
    (``all/seat_taken.txt.j2``): a new player took ``player``'s seat over; the deadline,
    moved ``held_over`` hours by the hold-over rule (or None).  The new player's address
    is named unless the game is anonymous (to the game master, always)."""
    assert game.deadline is not None and game.phase is not None
    anonymous = game_settings(game).anonymous
    for reader in recipients(session, game, Audience.NEWS, judge):
        if reader.player_id == player.id or reader.address == player.address:
            continue
        mail = render(
            judge, "all/seat_taken.txt.j2", game,
            reader=_reader_name(reader),
            power=player.power,
            address=None if anonymous and not _is_master(reader) else player.address,
            phase_code=game.phase,
            held_over=_hours(held_over),
            deadline_game=format_deadline(game.deadline, game_zone(game, judge)),
            deadline_player=own_zone(judge, game, reader, game.deadline),
        )  # fmt: skip
        queue(session, judge, game, reader, mail, "notice", now)


def send_new_address(
    session: Session, judge: Judge, game: Game, player: Player, now: datetime
) -> None:
    """To ``player`` at the address the game master gave their seat
    (``player/new_address.txt.j2``)."""
    mail = render(
        judge, "player/new_address.txt.j2", game,
        power=player.power,
        address=player.address,
        signon_line=signon_line(game, player.power),
    )  # fmt: skip
    queue(session, judge, game, recipient_of(game, player, judge), mail, "notice", now)


def _hours(hours: float | None) -> str | None:
    """``48`` for 48.0 hours, ``1.5`` for 1.5; None stays None."""
    if hours is None:
        return None
    return f"{hours:g}"
