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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["Condition", "PressRequest", "Targets", "refuse", "send"]


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


def send(conversation: Conversation, request: PressRequest) -> None:
    """Check ``request`` against the game signed on to, store it and send it to each of
    its recipients, confirming it in the reply; or refuse it (:func:`refuse`)."""
    raise NotImplementedError


def refuse(conversation: Conversation, line: str, body: tuple[str, ...], reason: str) -> None:
    """Refuse the press of ``line`` with ``reason`` (the error flag), giving its text
    (``body``) back in the reply so that nothing the sender wrote is lost."""
    raise NotImplementedError
