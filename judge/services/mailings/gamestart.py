"""The game-start mail beside the players' own (``player/gamestart.txt.j2``, in
:mod:`judge.services.mailings.players`): the game master's, with the roster, and the
observers'."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from judge.db.models import Game
from judge.engine.position import Position
from judge.presenters import and_list, format_deadline, position_report
from judge.services.audience import Audience, recipients
from judge.services.context import Judge
from judge.services.game_settings import (
    endgame_text,
    game_rules,
    game_settings,
    game_zone,
    press_text,
    year_text,
)
from judge.services.mailings.common import own_zone, queue, render

__all__ = ["Seat", "send_master_gamestart", "send_observers_gamestart"]


@dataclass(frozen=True)
class Seat:
    """One line of a game's roster at its start."""

    power: str
    address: str
    #: The judge made the seat's password and mailed it to the player (never shown).
    generated: bool = False


def _deadline_text(judge: Judge, game: Game) -> str:
    return format_deadline(game.deadline, game_zone(game, judge)) if game.deadline else "none set"


def send_master_gamestart(
    session: Session,
    judge: Judge,
    game: Game,
    roster: Sequence[Seat],
    now: datetime,
    *,
    position: Position,
    pictures: Sequence[Mapping[str, object]] = (),
) -> None:
    """To the game master (``gm/gamestart.txt.j2``): the game started; its press
    settings; the roster power by power with addresses, whose passwords the judge made
    and mailed (never the passwords), the observers, the first phase and its deadline;
    with the map ``pictures`` (the first phase's board)."""
    made = [seat.power for seat in roster if seat.generated]
    mail = render(
        judge, "gm/gamestart.txt.j2", game,
        roster=list(roster),
        generated=and_list(made),
        anonymous=game_settings(game).anonymous,
        press=press_text(game_settings(game)),
        endings=endgame_text(game_settings(game)),
        year=year_text(game_settings(game)),
        observers=[r.address for r in recipients(session, game, Audience.OBSERVERS, judge)],
        phase_text=position.phase.describe(),
        deadline_game=_deadline_text(judge, game),
    )  # fmt: skip
    for reader in recipients(session, game, Audience.MASTER, judge):
        queue(session, judge, game, reader, mail, "gamestart", now, pictures=pictures)


def send_observers_gamestart(
    session: Session,
    judge: Judge,
    game: Game,
    roster: Sequence[Seat] | None,
    now: datetime,
    *,
    position: Position,
    pictures: Sequence[Mapping[str, object]] = (),
) -> None:
    """To each observer (``observer/gamestart.txt.j2``): the game started, with the
    ``roster`` (None: an anonymous game, no addresses), the first deadline and the
    starting position, and the map ``pictures``; no password, no power."""
    for reader in recipients(session, game, Audience.OBSERVERS, judge):
        mail = render(
            judge, "observer/gamestart.txt.j2", game,
            judge_address=judge.settings.address,
            variant="Standard",
            rules_text=f"{game_rules(game).edition.value} rulebook",
            press=press_text(game_settings(game)),
        endings=endgame_text(game_settings(game)),
        year=year_text(game_settings(game)),
            master_address=game.master_address,
            roster=None if roster is None else list(roster),
            phase_text=position.phase.describe(),
            deadline_game=_deadline_text(judge, game),
            deadline_observer=own_zone(judge, game, reader, game.deadline),
            signon_line=f"OBSERVE {game.name}",
            position_text=position_report(position),
        )  # fmt: skip
        queue(session, judge, game, reader, mail, "gamestart", now, pictures=pictures)
