"""What the game master is told alone while acting for a power (``BECOME``): the
commands that answer the master only (PREVIEW, LIST, the master's settings) say it
inside :func:`master_part`, so that the power's copy of the reply never holds it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from judge.services.errors import ServiceError
from judge.services.signons import SignOn

if TYPE_CHECKING:
    from judge.commands.base import Command
    from judge.services.conversation import Conversation

__all__ = ["master_only", "master_part"]


def master_only(conversation: Conversation, text: str) -> None:
    """Add ``text`` to the reply to the game master, and never to the copy a power gets
    when the master acts for it (``BECOME``): that power's part of the reply ends before
    it, and a new part begins after it."""
    with master_part(conversation):
        conversation.reply.paragraphs.append(text)


@contextmanager
def master_part(conversation: Conversation, command: Command | None = None) -> Iterator[None]:
    """What is said inside goes to the game master alone: when the master acts for a
    power (``BECOME``), that power's part of the reply (its copy) ends before it and a
    new part begins after it.  With ``command``, a ServiceError inside refuses its line
    there too (a refusal may name another power's address)."""
    signed = conversation.signed
    if signed is None or not signed.by_master:
        yield
        return
    conversation.end_signon()
    try:
        yield
    except ServiceError as err:
        if command is None:
            raise
        conversation.reject(command.line, str(err))
    finally:
        conversation.signed_on(SignOn(signed.game, signed.player, signed.copy_to, by_master=True))
