"""PREVIEW (the njudge's PREDICT): what processing the current phase now would give,
for the game master's eyes only; nothing is stored."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from judge.commands.base import Audience, Command, Help, MailCommand
from judge.services.errors import ServiceError
from judge.services.preview import preview
from judge.services.signons import SignOn
from judge.services.unit_of_work import write_changes

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["Preview", "master_only", "master_part"]


class Preview(MailCommand):
    """``PREVIEW`` (or ``PREDICT``): the current phase adjudicated with the orders as they
    stand, orders earlier in this message included, in the reply to the game master."""

    name = "PREVIEW"
    spellings = ("PREDICT",)
    help = Help(
        usage=("PREVIEW",),
        description=(
            "see what processing the current phase now would give (the njudge's PREDICT); "
            "nothing is stored and nobody else is told"
        ),
        audience=Audience.MASTER,
    )
    # "Preview of my plans": prose, as the njudge's PREDICT takes nothing.
    words_after_are_prose = True

    def process(self, conversation: Conversation, command: Command) -> None:
        game = conversation.master()
        # Adjudication reads the orders from the database: the batch's go there first,
        # as for PROCESS (they are stored anyway when the message's transaction ends).
        write_changes(conversation.session, conversation.work)
        result = preview(conversation.session, game)
        master_only(conversation, result.text(game.name))


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
