"""Press: players, the game master and observers writing to each other through the judge.

What a press line asks for is a :class:`PressRequest` (read from the ``PRESS`` /
``BROADCAST`` / ``POSTALPRESS`` line by :mod:`judge.commands.press`); this module checks
it against the game's press settings (:class:`~judge.config.GameSettings`: ``press``,
``partial_press``, ``observer_press``, ``press_max_chars``, ``press_per_hour``,
``master_reads_press``), stores it (:class:`~judge.db.models.PressRecord`) and sends one
mail per recipient, or refuses it with the reason and gives its text back.  A press
release (``PRESS PUBLISH``) is held for the next results: :mod:`judge.services.releases`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from judge.config import GameSettings, ObserverPress, Press
from judge.db import queries
from judge.db.models import Game, GameStatus
from judge.services.game_settings import game_settings

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = [
    "Condition",
    "PressRefused",
    "PressRequest",
    "Sender",
    "Targets",
    "check_limits",
    "kind_allows",
    "refuse",
    "send",
    "sender_of",
]

#: Of a press refused to a sender who is not signed on (the address may be forged), at
#: most this much of its text is given back.
UNSIGNED_ECHO_CHARS = 2_000


class PressRefused(Exception):
    """A press that cannot be sent; the message is the reason, for the sender."""


@dataclass(frozen=True)
class Targets:
    """A set of readers as a press line names them.

    ``every``: all the players (``ALL``, ``BROADCAST``), less ``but`` (``ALL BUT G``);
    otherwise ``powers`` (canonical names, in the order written, each once).  ``master``
    (``M``) and ``observers`` (``O``) add the game master and the observers.
    """

    every: bool = False
    but: tuple[str, ...] = ()
    powers: tuple[str, ...] = ()
    master: bool = False
    observers: bool = False


@dataclass(frozen=True)
class Condition:
    """A press release's condition: ``order`` (as written) succeeds, or fails."""

    order: str
    succeeds: bool


@dataclass(frozen=True)
class PressRequest:
    """What one press line asks for; nothing checked against the game yet.

    ``to`` the real recipients (None: the line named none; ``PRESS`` alone sends
    nothing); ``signed`` "white" or "grey" when the line says so (None: the game's
    default); ``fake`` whether the line says ``FAKE`` (``NOFAKE``: False); ``fake_as`` the
    power a faked press claims to come from (``FAKE AS G``); ``fake_to`` the recipients a
    faked press claims (``FAKE BROADCAST``, ``FAKE TO FG``); ``publish`` a press release
    for the next results (``PRESS PUBLISH``, ``POSTALPRESS``) with its ``conditions``
    (all must hold); ``body`` the lines of the press as written and ``end`` the line that
    ended it (``ENDPRESS``, ``SIGNOFF``; None: the end of the message); ``line`` the
    press line itself, as written.
    """

    command: str
    line: str
    to: Targets | None = None
    signed: str | None = None
    fake: bool = False
    fake_as: str | None = None
    fake_to: Targets | None = None
    publish: bool = False
    conditions: tuple[Condition, ...] = ()
    body: tuple[str, ...] = ()
    end: str | None = None


@dataclass(frozen=True)
class Sender:
    """Who sends a press, as the sign-on of the message says.

    ``role`` "power", "master" or "observer"; ``power`` the sending power ("power"
    only); ``out`` the power has neither units nor supply centres left (it may still
    write to the game master); ``address`` the address the message came from.
    """

    game: Game
    settings: GameSettings
    role: str
    power: str | None
    address: str
    out: bool = False


def sender_of(conversation: Conversation) -> Sender:
    """The sender of a press in ``conversation``; raises :class:`PressRefused` when the
    message has signed on to no game (or the game's press is closed to the sender)."""
    signed = conversation.signed
    if signed is None:
        raise PressRefused(
            "sign on first: a press is sent in a game, as one of its players, its game "
            "master or an observer (SIGNON <power initial><game> <password>, then PRESS)"
        )
    game = signed.game
    settings = game_settings(game)
    address = conversation.mail.sender.lower()
    if signed.is_master and signed.player is None:
        return Sender(game, settings, "master", None, address)
    if signed.observer is not None:
        return Sender(game, settings, "observer", None, address)
    if signed.by_master:
        # The master acting for a power (BECOME) writes as the master, never as the power.
        return Sender(game, settings, "master", None, address)
    player = signed.player
    assert player is not None
    out = False
    if game.phase is not None and game.status != GameStatus.FORMING:
        position = conversation.position(game)
        out = not position.units_of(player.power) and not position.centres_of(player.power)
    return Sender(game, settings, "power", player.power, address, out)


def check_limits(conversation: Conversation, sender: Sender, body: tuple[str, ...]) -> None:
    """Refuse (:class:`PressRefused`) a press that is empty, longer than the game allows
    (``press_max_chars``) or one too many in the last hour (``press_per_hour``); the
    game master is held to neither limit."""
    text = "\n".join(body).strip()
    if not text:
        raise PressRefused(
            "the press is empty: write its text on the lines after the PRESS line, then "
            "ENDPRESS alone on a line"
        )
    if sender.role == "master":
        return
    limit = sender.settings.press_max_chars
    if len(text) > limit:
        raise PressRefused(
            f"the press is {len(text):,} characters long; {sender.game.name} takes press "
            f"of at most {limit:,} characters: cut it, or send it in parts"
        )
    hourly = sender.settings.press_per_hour
    since = conversation.now - timedelta(hours=1)
    sent = queries.press_count_since(conversation.session, sender.game.id, sender.address, since)
    if sent >= hourly:
        raise PressRefused(
            f"you have sent {sent:,} press in {sender.game.name} in the last hour, the most "
            "the game allows; send this one again later"
        )


def kind_allows(sender: Sender, *, broadcast: bool, to_master_only: bool) -> str | None:
    """Why the game's press settings refuse this sender's press (None: they allow it).

    Press to the game master alone is always allowed, as is the master's own press.
    """
    if to_master_only or sender.role == "master":
        return None
    settings = sender.settings
    name = sender.game.name
    if settings.press is Press.NONE:
        return f"{name} has no press; you may still write to the game master: PRESS TO M"
    if sender.role == "observer":
        if settings.observer_press is ObserverPress.NONE:
            return (
                f"the observers of {name} may send no press, except to the game master: "
                "PRESS TO M"
            )
        if settings.observer_press is ObserverPress.BROADCAST and not broadcast:
            return f"the observers of {name} may send broadcasts only: BROADCAST ... ENDPRESS"
    if sender.out:
        return (
            f"{sender.power} is out of {name} (no units and no supply centres): you may "
            "still write to the game master: PRESS TO M"
        )
    if not broadcast and not settings.partial_press:
        return (
            f"{name} allows broadcasts only (no partial press): BROADCAST ... ENDPRESS, or "
            "PRESS TO M for the game master"
        )
    return None


def send(conversation: Conversation, request: PressRequest) -> None:
    """Check ``request`` against the game signed on to, store it and send it to each of
    its recipients, confirming it in the reply; or refuse it (:func:`refuse`)."""
    raise NotImplementedError


def refuse(conversation: Conversation, line: str, body: tuple[str, ...], reason: str) -> None:
    """Refuse the press of ``line`` with ``reason`` (the error flag), giving its text
    (``body``) back in the reply so that nothing the sender wrote is lost (to a sender
    not signed on, whose address may be forged, an excerpt of it)."""
    conversation.reject(line, reason)
    text = "\n".join(body).strip("\n")
    if not text.strip():
        return
    if conversation.signed is None and len(text) > UNSIGNED_ECHO_CHARS:
        more = len(text) - UNSIGNED_ECHO_CHARS
        text = f"{text[:UNSIGNED_ECHO_CHARS]}\n[... {more:,} more characters]"
    conversation.reply.paragraphs.append(
        f"This press was not sent ({line.strip()}); its text, for you to send again:\n\n"
        + "\n".join(f"  | {row}" for row in text.split("\n"))
    )
