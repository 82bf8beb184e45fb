"""PREVIEW (the njudge's PREDICT): what processing the current phase now would give,
for the game master's eyes only; nothing is stored."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.commands.acting import master_only
from judge.commands.base import Audience, Command, Help, MailCommand
from judge.services.preview import preview
from judge.services.unit_of_work import write_changes

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["Preview"]


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
