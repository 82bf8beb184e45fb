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
from judge.db.models import Game, GameStatus, PressRecord, PressState
from judge.services import press_readers, press_signing
from judge.services.audience import Audience, recipients
from judge.services.blocks import give_back, unended_reason
from judge.services.game_settings import game_settings
from judge.services.mailings.press import MasterCopy, PressMail, send_press

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = [
    "EVERYONE",
    "MASTER_ONLY",
    "Condition",
    "PressRefused",
    "PressRequest",
    "Sender",
    "Targets",
    "check_ended",
    "check_limits",
    "kind_allows",
    "refuse",
    "send",
    "sender_of",
]


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
    # Counted by the power, not the address: a player may sign on from any address.
    sent = queries.press_count_since(
        conversation.session, sender.game.id, since, power=sender.power, address=sender.address
    )
    if sent >= hourly:
        raise PressRefused(
            f"you have sent {sent:,} press in {sender.game.name} in the last hour, the most "
            "the game allows; send this one again later"
        )


def check_ended(conversation: Conversation, request: PressRequest) -> None:
    """Refuse (:class:`PressRefused`) a press that no ENDPRESS ended (``SIGNOFF`` or the
    end of the message did) when lines of it read as orders: they are the sender's orders
    written after a forgotten (or misspelt) ENDPRESS far more often than press, and sending
    them to the recipients, unentered, would be the worst reading of the message."""
    if request.end in ("ENDPRESS", "ENDBROADCAST"):
        return
    reason = unended_reason(
        conversation, request.body, request.end,
        end_word="ENDPRESS", what="press", done="nothing was sent",
    )  # fmt: skip
    if reason is not None:
        raise PressRefused(reason)


def kind_allows(sender: Sender, *, broadcast: bool, to_master_only: bool) -> str | None:
    """Why the game's press settings refuse this sender's press (None: they allow it).

    Press to the game master alone is always allowed, as is the master's own press.
    """
    if to_master_only or sender.role == "master":
        return None
    settings = sender.settings
    name = sender.game.name
    if settings.press is Press.NONE:
        return f"game {name} has no press; you may still write to the game master: PRESS TO M"
    if sender.role == "observer":
        if settings.observer_press is ObserverPress.NONE:
            return (
                f"the observers of {name} may send no press, except to the game master: PRESS TO M"
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
            f"game {name} allows broadcasts only (no partial press): BROADCAST ... ENDPRESS, or "
            "PRESS TO M for the game master"
        )
    return None


def send(conversation: Conversation, request: PressRequest) -> None:
    """Check ``request`` against the game signed on to, store it and send it to each of
    its recipients, confirming it in the reply; or refuse it (:func:`refuse`).

    Nothing is stored nor sent before every check has passed.
    """
    try:
        _send(conversation, request)
    except PressRefused as err:
        refuse(conversation, request.line, request.body, str(err))


#: A broadcast, as ``BROADCAST`` and ``ALL`` name it.
EVERYONE = Targets(every=True, master=True, observers=True)
#: Press to the game master alone.
MASTER_ONLY = Targets(master=True)


def _send(conversation: Conversation, request: PressRequest) -> None:
    sender = sender_of(conversation)
    to = request.to
    if to is None:
        if not request.fake:
            raise PressRefused(
                "PRESS alone sends nothing: name the recipients, PRESS TO <powers> ... "
                "ENDPRESS (initials PRESS TO FG, or names), or BROADCAST for everyone"
            )
        to = EVERYONE  # "PRESS FAKE TO FG": a broadcast shown as to France and Germany
    master_only = to == MASTER_ONLY
    broadcast = to.every and not to.but and to.master and to.observers
    reason = kind_allows(sender, broadcast=broadcast, to_master_only=master_only)
    if reason is not None:
        raise PressRefused(reason)
    check_limits(conversation, sender, request.body)
    signing = press_signing.signing(sender, request, master_only)
    readers = press_readers.resolve(conversation, sender, to)
    real = press_readers.shown(readers, sender.power, complement=True, grey=False)
    shown = press_signing.shown_to(sender, request, readers, to, signing)
    text = "\n".join(request.body).strip("\n")
    game, now = sender.game, conversation.now
    not_before = press_signing.held_until(conversation, sender, signing)
    conversation.session.add(
        PressRecord(
            game_id=game.id, seq=game.seq, phase=game.phase,
            sender_role=sender.role, sender_power=sender.power,
            sender_address=sender.address, signed=signing.signed,
            shown_from=signing.shown_from, shown_to=shown.text,
            recipients={
                "powers": list(readers.powers), "master": readers.master is not None,
                "observers": bool(readers.observers), "broadcast": real.broadcast,
                # Until its mail goes, HISTORY shows it to its sender only (press_history).
                **({"held_until": not_before.isoformat()} if not_before else {}),
            },
            body=text, release=False, state=PressState.SENT,
            inbound_id=conversation.inbound_id, created_at=now,
        )
    )  # fmt: skip
    mail = PressMail(
        shown_from=press_signing.shown_from(signing),
        shown_to=shown.text,
        broadcast=shown.broadcast,
        answer=press_signing.answer(signing),
        phase_code=game.phase,
        text=text,
    )
    judge, session = conversation.judge, conversation.session
    send_press(session, judge, game, readers.all, mail, now, not_before=not_before)
    if sender.settings.master_reads_press and sender.role != "master":
        master = recipients(session, game, Audience.MASTER, judge)
        taken = {r.address for r in readers.all} | {sender.address}
        copy_to = [r for r in master if r.address not in taken]
        if copy_to:
            who = sender.power or "an observer"
            copy = MasterCopy(who, signing.plain, press_readers.real_text(readers))
            send_press(session, judge, game, copy_to, mail, now, not_before=not_before, copy=copy)
    # The most its mail may wait, not the random wait itself: that is nobody's to know.
    held = None if not_before is None else -(-judge.settings.grey_press_delay // 60)
    said = press_signing.confirmation(request, readers, signing, shown, text, held=held)
    conversation.reply.actions.append(said)


def refuse(conversation: Conversation, line: str, body: tuple[str, ...], reason: str) -> None:
    """Refuse the press of ``line`` with ``reason`` (the error flag), giving its text
    (``body``) back in the reply so that nothing the sender wrote is lost (to a sender
    not signed on, whose address may be forged, an excerpt of it)."""
    give_back(
        conversation, line, reason, body,
        heading=f"This press was not sent ({line.strip()}); its text",
    )  # fmt: skip
