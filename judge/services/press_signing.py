"""How a press is signed (white, grey, faked) and shown to its readers, when it may be
delivered, and the sender's confirmation of it.

The game's kind of press (:class:`~judge.config.Press`) decides: ``white`` names the
sender, ``grey`` never does, ``white/grey`` names it unless the line says ``GREY``,
``grey/white`` hides it unless the line says ``WHITE``, ``fake`` names it by default and
allows ``GREY`` and ``FAKE`` (``FAKE AS <power>``: shown from that power; ``FAKE TO
<powers>``, ``FAKE BROADCAST``, ``FAKE`` alone: shown to other recipients than the real
ones).  Press to the game master alone is always white and never faked; the master's own
press is always white ("from the game master"); an observer's is shown "from an
observer".  A line that asks for what the game does not allow is refused with the reason.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from judge.config import Press
from judge.services import press_readers

if TYPE_CHECKING:
    from judge.services.conversation import Conversation
    from judge.services.press import PressRequest, Sender, Targets

__all__ = [
    "SHOWN_FROM",
    "Signing",
    "answer",
    "confirmation",
    "held_until",
    "is_grey",
    "sender_shown",
    "shown_from",
    "shown_to",
    "signing",
]


@dataclass(frozen=True)
class Signing:
    """How a press is signed: ``signed`` ("white", "grey", "fake"), the sender its
    readers are shown (``shown_from``: a power, "Master", "Observer", None), ``grey``
    (its recipients are shown for anonymity), ``how`` for the sender's confirmation,
    ``plain`` for the game master's copy ("grey", "faked as from Germany") and ``note`` a
    sentence more for the confirmation (or "")."""

    signed: str
    shown_from: str | None
    grey: bool
    how: str
    plain: str
    note: str = ""


#: How a reader is shown the game master and an observer as the sender (the press mail,
#: HISTORY, the results' press releases).
SHOWN_FROM = {"Master": "the game master", "Observer": "an observer"}


def shown_from(signing: Signing) -> str | None:
    """The sender as the mail shows it: a power, "the game master", "an observer"."""
    return sender_shown(signing.shown_from)


def sender_shown(stored: str | None) -> str | None:
    """A press's stored ``shown_from`` (a power, "Master", "Observer"; None: grey) as
    its readers read it: the power, "the game master", "an observer", or None."""
    if stored is None:
        return None
    return SHOWN_FROM.get(stored, stored)


def signing(sender: Sender, request: PressRequest, master_only: bool) -> Signing:
    """How the press of ``request`` is signed; raises :class:`PressRefused` when the game
    does not allow what the line asks for."""
    from judge.services.press import PressRefused

    kind, name = sender.settings.press, sender.game.name
    if sender.role == "master":
        if request.fake:
            raise PressRefused("the game master's press is never faked: leave FAKE out")
        note = " The game master's press is always white." if request.signed == "grey" else ""
        return Signing("white", "Master", False, "from the game master", "white", note)
    if sender.role == "observer":
        if request.fake:
            raise PressRefused(
                "an observer's press is shown from an observer and is never faked: leave FAKE out"
            )
        return Signing("white", "Observer", False, "shown from an observer", "white")
    power = sender.power
    if master_only:
        if request.fake:
            raise PressRefused("press to the game master is never faked: leave FAKE out")
        note = " Press to the game master is always white." if request.signed == "grey" else ""
        return Signing("white", power, False, f"white, from {power}", "white", note)
    if request.fake and kind is not Press.FAKE:
        raise PressRefused(
            f"game {name} has {kind.value} press, never faked: leave FAKE out (only a game with "
            "fake press allows it)"
        )
    grey = is_grey(sender, request.signed)
    fake_as = request.fake_as if request.fake_as != power else None
    if fake_as is not None:
        if grey:
            raise PressRefused(
                f"GREY and FAKE AS {fake_as}: a press hides its sender or shows another, "
                "not both; leave one out"
            )
        faked = f"faked as from {fake_as}"
        return Signing("fake", fake_as, False, faked, faked)
    faked_to = request.fake and (request.fake_to is not None or request.fake_as is None)
    # A press shown to other recipients than the real ones: its readers see those.
    other = ", faked as to other recipients" if faked_to else ""
    if grey:
        how = "grey, your power not named"
        return Signing("fake" if faked_to else "grey", None, True, how, f"grey{other}")
    how = f"white, from {power}"
    return Signing("fake" if faked_to else "white", power, False, how, f"white{other}")


def is_grey(sender: Sender, asked: str | None) -> bool:
    """Whether a press (or a press release) of ``sender`` is grey: as the line ``asked``
    ("white", "grey"; None: the game's default); raises :class:`PressRefused` when the
    game's kind of press does not allow what the line asks for."""
    from judge.services.press import PressRefused

    kind, name = sender.settings.press, sender.game.name
    if asked == "white" and not kind.white:
        raise PressRefused(
            f"game {name} has grey press only: no press names its sender; leave WHITE out"
        )
    if asked == "grey" and not kind.grey:
        raise PressRefused(
            f"game {name} has {kind.value} press only: every press names its sender; leave GREY out"
        )
    return asked == "grey" or (asked is None and kind.grey_by_default)


def shown_to(
    sender: Sender,
    request: PressRequest,
    readers: press_readers.Readers,
    to: Targets,
    signing: Signing,
) -> press_readers.Shown:
    """The recipients the readers are shown: the real ones (chosen for anonymity when
    grey), or those a faked press claims (``FAKE TO``; ``FAKE`` alone: a broadcast)."""
    from judge.services.press import EVERYONE

    claimed = request.fake_to
    if request.fake and claimed is None and request.fake_as is None:
        claimed = EVERYONE
    if claimed is None or sender.role != "power":
        grey = signing.grey
        return press_readers.shown(readers, sender.power, complement=to.every, grey=grey)
    universe = readers.universe
    powers = [p for p in universe if p not in claimed.but] if claimed.every else claimed.powers
    return press_readers.shown_to(
        universe, powers, sender.power,
        master=(readers.has_master, claimed.master),
        observers=(readers.has_observers, claimed.observers),
        complement=claimed.every,
    )  # fmt: skip


def answer(signing: Signing) -> str:
    """How a reader answers (see :class:`~judge.services.mailings.PressMail`)."""
    if signing.shown_from is None:
        return "grey"
    return {"Master": "master", "Observer": "observer"}.get(signing.shown_from, "power")


def held_until(conversation: Conversation, sender: Sender, signing: Signing) -> datetime | None:
    """When a press that could tell on its sender by its timing may be delivered: a grey
    or faked press, and every press of a power in a game that allows faking (so that a
    true one looks like a faked one), is held a random time of between half of ``[judge]
    grey_press_delay`` and all of it; any other, at once (None)."""
    delay = conversation.judge.settings.grey_press_delay
    anonymous = signing.signed != "white" or (
        sender.role == "power" and sender.settings.press is Press.FAKE
    )
    if not anonymous or delay <= 0:
        return None
    return conversation.now + timedelta(seconds=delay - secrets.randbelow(delay // 2 + 1))


def confirmation(
    request: PressRequest,
    readers: press_readers.Readers,
    signing: Signing,
    shown: press_readers.Shown,
    text: str,
    held: int | None = None,
) -> str:
    """The sender's confirmation of one press: to whom it went, how it was signed, its
    size, what was noticed on the way, and (``held``: the most minutes its mail waits)
    that it goes out a little later, at a random moment."""
    lines = text.count("\n") + 1
    size = f"{lines:,} line{'s' if lines != 1 else ''}, {len(text):,} characters"
    said = f"Press sent to {press_readers.real_text(readers)} ({signing.how}; {size})."
    if signing.signed != "white":
        seen = "a broadcast" if shown.broadcast else f"addressed to {shown.text}"
        said += f" Its readers see it as {seen}."
    if readers.dropped_own:
        said += " Your own power was left out of the recipients."
    said += signing.note
    if request.end is None:
        said += " It had no ENDPRESS after it, so it ran to the end of your message."
    if held is not None:
        said += (
            f" It goes out within {held} minute{'s' if held != 1 else ''}, at a random "
            "moment, so that its arrival ties it to nothing else you send."
        )
    return said
