"""Who gets a game's mail: the one place that answers it.

Every service that mails a game's players or its master asks :func:`recipients` with an
:class:`Audience` instead of choosing players by status itself, so a rule such as "a
resigned player hears no more deadlines" is written once, and a new kind of reader (the
observers a later issue brings) is one more audience here.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.orm import Session

from judge.db import queries
from judge.db.models import Game, Player, PlayerStatus
from judge.engine.board import standard_map
from judge.services.context import Judge
from judge.services.game_settings import game_zone, player_zone

__all__ = ["Audience", "Recipient", "recipient_of", "recipients"]


class Audience(enum.Enum):
    """The readers of one kind of a game's mail."""

    SEATS = "seats"
    """Every player the game has, resigned ones too: the game's start and its results
    (a player who resigned still reads how the game goes on)."""

    PLAYERS = "players"
    """The players still in the game: active or in civil disorder, not resigned nor
    ejected by the game master (a new deadline)."""

    ORDERING = "ordering"
    """The players expected to order: active only, since a power in civil disorder holds
    and a resigned player is gone (reminders, late notices)."""

    MASTER = "master"
    """The game master, when the game has one."""

    OBSERVERS = "observers"
    """The game's observers (``OBSERVE``): its public mail only, never a player's own."""

    EVERYONE = "everyone"
    """:attr:`SEATS`, then :attr:`MASTER`, then :attr:`OBSERVERS`; each address once
    only (the master who also plays a power, an observer who plays): the game's start
    and its results, broadcasts."""

    NEWS = "news"
    """:attr:`PLAYERS`, then :attr:`MASTER`, then :attr:`OBSERVERS`, each address once:
    what everyone still following the game is told of it (a deadline moved, a pause, a
    power into civil disorder or back, a seat taken over)."""


@dataclass(frozen=True)
class Recipient:
    """One reader of a game's mail."""

    address: str
    power: str | None
    """The power the reader plays, or ``None`` for the game master."""
    zone: str
    """The time zone to show this reader times in (their own, else the game's)."""
    player_id: int | None = None
    """The reader's row in ``players`` (``None`` for the game master and observers)."""
    observer: bool = False
    """The reader is an observer (``power`` is then ``None`` too)."""


def recipient_of(game: Game, player: Player, judge: Judge, address: str | None = None) -> Recipient:
    """``player`` as a reader of ``game``'s mail, at ``address`` (default: theirs)."""
    return Recipient(
        address=player.address if address is None else address,
        power=player.power,
        zone=player_zone(game, player, judge),
        player_id=player.id,
    )


def recipients(
    session: Session,
    game: Game,
    audience: Audience,
    judge: Judge,
    *,
    players: Sequence[Player] | None = None,
) -> list[Recipient]:
    """The readers of ``game``'s mail for ``audience``: the players in the map's order of
    powers, then the master.  ``players``: every player of the game, as the caller has
    them loaded already (processing a phase), instead of asking the database again."""
    if audience is Audience.MASTER:
        return _master(game, judge)
    if audience is Audience.OBSERVERS:
        return _observers(session, game, judge)
    if audience in (Audience.EVERYONE, Audience.NEWS):
        first = Audience.SEATS if audience is Audience.EVERYONE else Audience.PLAYERS
        readers = recipients(session, game, first, judge, players=players)
        taken = {r.address for r in readers}
        for reader in [*_master(game, judge), *_observers(session, game, judge)]:
            if reader.address not in taken:
                taken.add(reader.address)
                readers.append(reader)
        return readers
    chosen: Sequence[Player]
    if audience is Audience.SEATS:
        chosen = queries.players_of(session, game.id) if players is None else players
    elif audience is Audience.PLAYERS:
        chosen = (
            queries.players_of(session, game.id, not_status=PlayerStatus.RESIGNED)
            if players is None
            else [p for p in players if p.status != PlayerStatus.RESIGNED]
        )
        # An ejected player's seat is open, its power in civil disorder: they are out.
        chosen = [p for p in chosen if p.ejected_at is None]
    else:
        chosen = (
            queries.players_of(session, game.id, status=PlayerStatus.ACTIVE)
            if players is None
            else [p for p in players if p.status == PlayerStatus.ACTIVE]
        )
    order = {power: index for index, power in enumerate(standard_map().powers)}
    chosen = sorted(chosen, key=lambda p: (order.get(p.power, len(order)), p.power))
    return [recipient_of(game, player, judge) for player in chosen]


def _observers(session: Session, game: Game, judge: Judge) -> list[Recipient]:
    zone = game_zone(game, judge)
    return [
        Recipient(address=o.address, power=None, zone=o.timezone or zone, observer=True)
        for o in queries.observers_of(session, game.id)
    ]


def _master(game: Game, judge: Judge) -> list[Recipient]:
    if not game.master_address:
        return []
    return [Recipient(address=game.master_address, power=None, zone=game_zone(game, judge))]
