"""The mail of a press (``player/press.txt.j2``, one template for every reader): one
message per recipient, from the judge, to that recipient's address alone.

Nothing in it depends on the true sender of a grey or faked press: the Message-ID
carries no time (:func:`~judge.services.outbox.new_message_id`), no In-Reply-To or
References points to the sender's message, and the caller may hold it back
(``not_before``) so that its arrival does not follow the sender's other mail.  No
address of a player is ever in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from judge.db.models import Game
from judge.engine.board import standard_map
from judge.services.audience import Recipient
from judge.services.context import Judge
from judge.services.mailings.common import render
from judge.services.outbox import queue_mail

__all__ = ["MasterCopy", "PressMail", "send_press"]


@dataclass(frozen=True)
class PressMail:
    """What every reader of one press is shown.

    ``shown_from`` the sender as shown (a power, "the game master", "an observer"; None:
    grey); ``shown_to`` the recipients as shown ("England, Germany", "all but Germany");
    ``broadcast`` it reads as a broadcast; ``answer`` how to answer it: "power" (PRESS
    TO the power of ``shown_from``), "master", "observer" or "grey"; ``phase_code`` the
    phase being played (None before the game starts); ``text`` the press.
    """

    shown_from: str | None
    shown_to: str
    broadcast: bool
    answer: str
    phase_code: str | None
    text: str


@dataclass(frozen=True)
class MasterCopy:
    """The game master's copy of a press not sent to them (``master_reads_press``):
    the true ``sender``, how it was ``signed`` ("white", "grey", "faked as from
    Germany") and to whom it really went (``to``)."""

    sender: str
    signed: str
    to: str


def send_press(
    session: Session,
    judge: Judge,
    game: Game,
    readers: Sequence[Recipient],
    press: PressMail,
    now: datetime,
    *,
    not_before: datetime | None = None,
    copy: MasterCopy | None = None,
) -> None:
    """Queue ``press`` to each of ``readers`` (kind "press"), each to its own address,
    not delivered before ``not_before``; ``copy``: the readers are the game master, and
    the mail says who truly sent it."""
    letter = standard_map().power_letter.get(press.shown_from or "", "")
    mail = render(
        judge, "player/press.txt.j2", game,
        shown_from=press.shown_from,
        shown_to=press.shown_to,
        broadcast=press.broadcast,
        phase_code=press.phase_code,
        text=press.text,
        answer=press.answer,
        answer_power=press.shown_from,
        answer_letter=letter,
        copy=copy,
    )  # fmt: skip
    for reader in readers:
        queue_mail(
            session, judge, to=reader.address, mail=mail, kind="press", now=now,
            game_id=game.id, timeless=True, not_before=not_before,
        )  # fmt: skip
