"""A game's seats (house rules 4.6): when a seat is open, signing on to a seat (and
taking an open one over by mail with its takeover password), and the game master's
changes to a seat: ``EJECT``, ``SET PASSWORD <power>`` and ``SET ADDRESS <power>``.

A seat is open when its player resigned, was ejected by the game master, or is in civil
disorder (two missed phases).  An open seat's takeover password (the game file's
``takeover``, or the game master's ``SET PASSWORD <power> <password>``) signs a new
player on from any address: the seat becomes theirs, the takeover password their
password, the previous player's orders for the phase are dropped, and with the game's
``hold_over`` the deadline moves one phase length later.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy.orm import Session

from judge.db.models import Game, GameStatus, Player, PlayerStatus
from judge.presenters import format_deadline
from judge.services import future_orders, mailings
from judge.services.context import Judge
from judge.services.endgame import drop_votes
from judge.services.errors import ServiceError
from judge.services.game_settings import game_settings, game_zone, phase_deadline
from judge.services.games import respect_absences, set_deadline
from judge.services.notices import standings
from judge.services.passwords import hash_password
from judge.services.signons import SignOn, check_hashes, wrong_password
from judge.services.unit_of_work import write_changes

if TYPE_CHECKING:  # the commands call these with their conversation
    from judge.services.conversation import Conversation

__all__ = [
    "eject",
    "hold_over",
    "is_open",
    "resign",
    "seat_hashes",
    "seat_of",
    "set_seat_address",
    "set_seat_password",
    "sign_on_power",
    "why_open",
]


def is_open(player: Player) -> bool:
    """Whether ``player``'s seat is open: resigned, ejected, or in civil disorder."""
    return player.status in (PlayerStatus.RESIGNED, PlayerStatus.CIVIL_DISORDER)


def why_open(player: Player) -> str:
    """Why the seat is open, as a clause: ``its player resigned``."""
    if player.ejected_at is not None:
        return "the game master ejected its player"
    if player.status == PlayerStatus.RESIGNED:
        return "its player resigned"
    return "its player missed two phases in a row and it is in civil disorder"


def resign(
    session: Session, judge: Judge, game: Game, player: Player, now: datetime, also: str | None
) -> None:
    """``player`` leaves ``game``: the seat is open (its units hold until a new player
    takes it over); the game master is told, and once the game has started everyone else
    following it (``also``: the registered address, when the player resigned from
    another)."""
    player.status = PlayerStatus.RESIGNED
    player.wait = False
    mailings.send_player_resigned(session, judge, game, player, now)
    if game.phase is not None:  # a game that has not started has no seat to take over
        mailings.send_seat_open(session, judge, game, player, now, ejected=False, also=also)


def _running(game: Game) -> None:
    """Raise ServiceError unless ``game`` is being played (active or paused)."""
    if game.status == GameStatus.FORMING:
        raise ServiceError(
            f"{game.name} has not started: its players are the ones in its game file"
        )
    if game.status == GameStatus.FINISHED:
        raise ServiceError(f"{game.name} is finished: its seats no longer change")


def _other_seat(conversation: Conversation, game: Game, player: Player, address: str) -> None:
    """Raise ServiceError when ``address`` plays another power of ``game`` (house rule
    2.3: one player, one power)."""
    for power in conversation.map.powers:
        other = conversation.seat(game, power)
        if other is not None and other is not player and other.address == address:
            if other.status == PlayerStatus.RESIGNED:
                continue
            raise ServiceError(
                f"{address} plays {other.power} in {game.name} already, and a player may "
                f"play one power only (house rule 2.3)"
            )


# -- signing on -------------------------------------------------------------------------


def sign_on_power(conversation: Conversation, game: Game, player: Player, password: str) -> SignOn:
    """The sign-on to ``player``'s seat with ``password``: the player's own, or, on an
    open seat, its takeover password (:func:`take_over`).  Raises ServiceError with the
    reason it is refused; a wrong password counts towards the seat's lockout either way,
    and the refusal never says whether a password was a seat's takeover password."""
    sender = conversation.mail.sender
    conversation.seat_named = True
    try:
        # A game that is over has no seat to take over: its players sign on with their
        # own passwords, whatever became of their seats, to read that no more orders are
        # taken (rather than that its seats no longer change, and their orders unread).
        hashes = seat_hashes(game, player)
        if is_open(player) and game.status != GameStatus.FINISHED:
            _running(game)
            _other_seat(conversation, game, player, sender)
            own = hashes[0]
            found = _check(conversation, game, player, password, hashes,
                           lambda: _open_refusal(game, player, own_allowed=bool(own)))  # fmt: skip
        elif sender == player.address or game.status == GameStatus.FINISHED:
            found = _check(conversation, game, player, password, hashes,
                           lambda: wrong_password(game, player))  # fmt: skip
        else:
            found = _check(conversation, game, player, password, hashes,
                           lambda: _closed_refusal(game, player))  # fmt: skip
    except ServiceError:
        conversation.signon_failed = True
        raise
    if found == 1:
        take_over(conversation, game, player)
        return SignOn(game, player)
    return SignOn(game, player, player.address if player.address != sender else None)


def seat_hashes(game: Game, player: Player) -> tuple[str | None, ...]:
    """The password hashes a sign-on to ``player``'s seat is checked against, in order
    (:func:`sign_on_power`; the second, when there is one, takes the seat over): an open
    seat of a game not over, its player's own in civil disorder and the takeover
    password; any other seat, its player's own."""
    if is_open(player) and game.status != GameStatus.FINISHED:
        # The player of a power in civil disorder (not ejected) may come back.
        own = player.password_hash if player.status == PlayerStatus.CIVIL_DISORDER else None
        return (own, player.takeover_hash)
    return (player.password_hash,)


def _check(
    conversation: Conversation,
    game: Game,
    player: Player,
    password: str,
    hashes: tuple[str | None, ...],
    wrong: Callable[[], str],
) -> int:
    return check_hashes(
        conversation.session, conversation.judge, conversation.work, game, player, password,
        hashes, sender=conversation.mail.sender, now=conversation.now, wrong=wrong,
    )  # fmt: skip


def _closed_refusal(game: Game, player: Player) -> str:
    """A wrong password from an address other than the seat's: it may be a takeover of
    a seat that is not open, which is said, without a word on the password tried."""
    return (
        f"{wrong_password(game, player)}. {player.power} is not an open seat (it has a "
        f"player), so it cannot be taken over: only a seat whose player resigned, was "
        "ejected or is in civil disorder can"
    )


def _open_refusal(game: Game, player: Player, *, own_allowed: bool) -> str:
    """A wrong password for an open seat: what would sign on."""
    head = f"wrong password for {player.power} in {game.name}, an open seat ({why_open(player)})"
    where = f" (write to {game.master_address})" if game.master_address else ""
    if player.takeover_hash is None:
        text = f"{head}: the game master has set no takeover password for it yet{where}"
    else:
        text = (
            f"{head}: a new player takes it over with the takeover password the game "
            f"master gives{where}"
        )
    if own_allowed:
        text += f"; {player.power}'s own player signs on with their own password"
    return text


def take_over(conversation: Conversation, game: Game, player: Player) -> None:
    """The sender takes ``player``'s open seat over: the seat is theirs (the takeover
    password their password), active, with no orders for the phase; the new player,
    everyone else still following the game, and the previous address are told.  With
    the game's ``hold_over``, the deadline first moves one phase length later."""
    session, judge, now = conversation.session, conversation.judge, conversation.now
    sender = conversation.mail.sender
    old_address = player.address
    # The previous player's orders for this phase are theirs, not the new player's.
    conversation.work.orders.retire(session, game, player, None)
    # And so are the orders they sent ahead for later phases (retired unannounced: the
    # new player never saw them, and nobody else is concerned).
    future_orders.drop(session, game, player)
    # So are its secret votes to end the game: the new player never cast them.
    drop_votes(session, game, player.power)
    assert player.takeover_hash is not None
    player.address = sender
    player.password_hash, player.takeover_hash = player.takeover_hash, None
    player.status = PlayerStatus.ACTIVE
    player.missed = 0
    player.wait = False
    player.timezone = None
    player.absence_from = player.absence_to = None
    player.absences_used = 0
    player.ejected_at = None
    held = hold_over(session, judge, game, now)
    # The new player's orders so far (none) are read from the store, as a reminder's.
    write_changes(session, conversation.work)
    position = conversation.position(game)
    standing = standings(session, game)[player.power]
    mailings.send_takeover(
        session, judge, game, player, now, position=position,
        order_lines=standing.order_lines, missing_lines=standing.missing_lines, held_over=held,
    )  # fmt: skip
    mailings.send_seat_taken(session, judge, game, player, now, held_over=held)
    if old_address != sender:
        mailings.send_replaced(session, judge, game, player, old_address, now, taken_over=True)
    zone = game_zone(game, judge)
    moved = (
        f" The deadline moves {held:g} hours later (house rule 4.6): it is now "
        f"{format_deadline(game.deadline, zone)}."
        if held is not None and game.deadline is not None
        else ""
    )
    conversation.reply.actions.append(
        f"You have taken over {player.power} in {game.name}: the takeover password is now "
        f"your password. The judge mails you the position and your orders so far.{moved}"
    )


def hold_over(session: Session, judge: Judge, game: Game, now: datetime) -> float | None:
    """With the game's ``hold_over`` (house rule 4.6), move the current deadline one phase
    length (the current phase kind's ``hours``) later, counted from the deadline or, once
    it has passed, from ``now``; how many hours, or None when it did not move."""
    if not game_settings(game).hold_over or game.deadline is None:
        return None
    hours = phase_deadline(game).hours
    set_deadline(session, game, max(game.deadline, now) + timedelta(hours=hours))
    respect_absences(session, game)
    return hours


# -- the game master's changes ------------------------------------------------------------


def seat_of(conversation: Conversation, game: Game, word: str) -> Player:
    """The seat of the power ``word`` names (an initial or a name) in ``game``; raises
    ServiceError naming the powers."""
    power = conversation.map.find_power(word)
    player = conversation.seat(game, power) if power is not None else None
    if player is None:
        powers = ", ".join(conversation.map.powers)
        raise ServiceError(f"{word!r} is not a power of {game.name}: name one of {powers}")
    return player


def eject(conversation: Conversation, game: Game, word: str) -> None:
    """The game master ejects the player of the power ``word`` names: the seat is open,
    the power in civil disorder (its units hold, it is not waited for) and the player's
    password no longer signs on; the player and everyone still following are told."""
    _running(game)
    player = seat_of(conversation, game, word)
    if player.ejected_at is not None:
        raise ServiceError(f"{player.power} was ejected already: its seat is open")
    if player.status == PlayerStatus.RESIGNED:
        raise ServiceError(
            f"{player.power} resigned: its seat is open already; set its takeover password "
            f"with SET PASSWORD {player.power} <password>"
        )
    session, judge, now = conversation.session, conversation.judge, conversation.now
    mailings.send_ejected(session, judge, game, player, now)
    conversation.work.orders.retire(session, game, player, None)
    # The ejected player's orders sent ahead are theirs, not the seat's: the power is
    # in civil disorder now, and a new player starts with none.
    future_orders.drop(session, game, player)
    player.status = PlayerStatus.CIVIL_DISORDER
    player.ejected_at = now
    player.password_hash = ""  # no password matches an empty hash
    player.wait = False
    mailings.send_seat_open(session, judge, game, player, now, ejected=True)
    takeover = (
        "its takeover password is set"
        if player.takeover_hash is not None
        else f"set its takeover password with SET PASSWORD {player.power} <password>"
    )
    conversation.reply.actions.append(
        f"{player.power} ({player.address}) is ejected from {game.name}: the seat is open "
        f"and the power in civil disorder until a new player takes it over; {takeover}."
    )


def set_seat_password(conversation: Conversation, game: Game, word: str, new: str) -> None:
    """The game master's ``SET PASSWORD <power> <new>``: an open seat's takeover
    password, else the player's password (the player is told it, in a mail purged once
    sent)."""
    if game.status == GameStatus.FINISHED:
        _running(game)
    player = seat_of(conversation, game, word)
    if is_open(player):
        player.takeover_hash = hash_password(new)
        conversation.reply.actions.append(
            f"Takeover password for {player.power} in {game.name} set ({why_open(player)}): "
            f"a new player takes the seat over with SIGNON "
            f"{player.power.lower()}@{game.name} <takeover password>."
        )
        return
    player.password_hash = hash_password(new)
    session, judge, now = conversation.session, conversation.judge, conversation.now
    mailings.send_new_password(session, judge, game, player, new, now)
    conversation.reply.actions.append(
        f"Password for {player.power} in {game.name} changed; the player is told it at "
        f"{player.address}."
    )


def set_seat_address(conversation: Conversation, game: Game, word: str, address: str) -> None:
    """The game master's ``SET ADDRESS <power> <address>`` for a player who lost access
    to theirs: the judge's mail for the power goes to ``address`` (checked by the
    caller), and the player is told there."""
    if game.status == GameStatus.FINISHED:
        _running(game)
    player = seat_of(conversation, game, word)
    if player.status == PlayerStatus.RESIGNED or player.ejected_at is not None:
        raise ServiceError(
            f"{player.power}'s seat is open ({why_open(player)}): a new player takes it over "
            f"by mail with its takeover password (SET PASSWORD {player.power} <password>)"
        )
    if player.address == address:
        raise ServiceError(f"{player.power}'s address is {address} already")
    _other_seat(conversation, game, player, address)
    player.address = address
    session, judge, now = conversation.session, conversation.judge, conversation.now
    mailings.send_new_address(session, judge, game, player, now)
    conversation.reply.actions.append(
        f"{player.power}'s address in {game.name} is now {address}; the player is told there."
    )
