"""The news of civil disorder and missing orders: a power into civil disorder and back
(house rules 4.3-4.4), a game that waits for missing orders (``nmr = "wait"``), and the
game master's copy of the late notices.  Every reader still following the game hears of
it (:attr:`~judge.services.audience.Audience.NEWS`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime

from sqlalchemy.orm import Session

from judge.db.models import Game, Player
from judge.engine.phases import Phase
from judge.presenters import and_list, format_deadline
from judge.services.audience import Audience, Recipient, recipient_of, recipients
from judge.services.context import Judge
from judge.services.game_settings import game_zone
from judge.services.mailings.common import queue, render, signon_line, to_master

__all__ = [
    "send_back_from_disorder",
    "send_civil_disorder_news",
    "send_late_master",
    "send_waiting",
]


def send_civil_disorder_news(
    session: Session, judge: Judge, game: Game, player: Player, phase_code: str, now: datetime
) -> None:
    """``player``'s power went into civil disorder after missing ``phase_code``: the
    player is told what it means and how to come back (``player/civil_disorder.txt.j2``),
    every other reader but the game master (who has its own notice,
    :func:`~judge.services.mailings.master.send_civil_disorder`) is told the news
    (``all/civil_disorder.txt.j2``)."""
    facts = {"power": player.power, "phase_code": phase_code}
    own = render(
        judge, "player/civil_disorder.txt.j2", game, **facts,
        signon_line=signon_line(game, player.power),
        master_address=game.master_address,
    )  # fmt: skip
    queue(session, judge, game, recipient_of(game, player, judge), own, "notice", now)
    news = render(judge, "all/civil_disorder.txt.j2", game, **facts)
    for reader in _others(session, judge, game, player):
        if reader.power is not None or reader.observer:  # the master has its own
            queue(session, judge, game, reader, news, "notice", now)


def send_back_from_disorder(
    session: Session, judge: Judge, game: Game, player: Player, phase_code: str, now: datetime
) -> None:
    """``player``'s power sent orders in ``phase_code`` and is out of civil disorder:
    every other reader is told (``all/back_from_disorder.txt.j2``; the player's own
    confirmation says so)."""
    mail = render(
        judge, "all/back_from_disorder.txt.j2", game, power=player.power, phase_code=phase_code
    )
    for reader in _others(session, judge, game, player):
        queue(session, judge, game, reader, mail, "notice", now)


def _others(session: Session, judge: Judge, game: Game, player: Player) -> Iterator[Recipient]:
    """The game's news readers but ``player`` (at any of its seats' addresses)."""
    for reader in recipients(session, game, Audience.NEWS, judge):
        if reader.player_id != player.id and reader.address != player.address:
            yield reader


# -- missing orders ----------------------------------------------------------------------


def send_late_master(
    session: Session,
    judge: Judge,
    game: Game,
    phase: Phase,
    missing: Mapping[str, Sequence[str]],
    process_at: datetime | None,
    now: datetime,
    *,
    anonymous: bool,
) -> None:
    """To the game master (``gm/late.txt.j2``): the deadline of ``phase`` has passed with
    orders ``missing`` (power -> what it still owes, a line each), always named (the
    players of an ``anonymous`` game were told only how many); the phase goes ahead at
    ``process_at``, or (``None``) the game waits for them or the master."""
    assert game.deadline is not None
    zone = game_zone(game, judge)
    mail = render(
        judge, "gm/late.txt.j2", game,
        variant="Standard",
        phase_code=phase.code,
        phase_text=phase.describe(),
        deadline_game=format_deadline(game.deadline, zone),
        late_powers=and_list(list(missing)),
        missing_lines=[line for lines in missing.values() for line in lines],
        process_game=format_deadline(process_at, zone) if process_at else None,
        anonymous=anonymous,
    )  # fmt: skip
    to_master(session, judge, game, mail, now)


def send_waiting(
    session: Session,
    judge: Judge,
    game: Game,
    phase: Phase,
    reader: Recipient,
    waited: Sequence[str],
    now: datetime,
    *,
    anonymous: bool,
) -> None:
    """To ``reader`` (a player, an observer: ``all/waiting.txt.j2``; the game master:
    ``gm/waiting.txt.j2``): the deadline and grace of ``phase`` have passed and the game
    (``nmr = "wait"``) waits for the orders of ``waited`` (named to the players unless
    ``anonymous``, always to the master)."""
    assert game.deadline is not None
    zone = game_zone(game, judge)
    facts: dict[str, object] = {
        "variant": "Standard",
        "phase_code": phase.code,
        "phase_text": phase.describe(),
        "deadline_game": format_deadline(game.deadline, zone),
        "anonymous": anonymous,
    }
    if reader.power is None and not reader.observer:
        mail = render(judge, "gm/waiting.txt.j2", game, **facts, late_powers=and_list(waited))
    else:
        mail = render(
            judge, "all/waiting.txt.j2", game, **facts,
            judge_address=judge.settings.address,
            power=reader.power,
            late_powers=None if anonymous else and_list(waited),
            late_count=len(waited),
            waited_for=reader.power in waited,
            signon_line=signon_line(game, reader.power) if reader.power else None,
        )  # fmt: skip
    queue(session, judge, game, reader, mail, "late", now)
