"""TERMINATE: the game master ends a game with no winner."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.commands.acting import master_part
from judge.commands.base import Audience, Command, Help, MailCommand
from judge.services.endings import terminate_game

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["Terminate"]


class Terminate(MailCommand):
    """``TERMINATE``: the game ends now, with no winner; everyone reading it is told."""

    name = "TERMINATE"
    help = Help(
        usage=("TERMINATE",),
        description=(
            "end the game now, with no winner: no more orders are taken, and every player "
            "and observer gets the game's final mail (the final position and centres, "
            "the centres year by year, the players' addresses)"
        ),
        audience=Audience.MASTER,
    )
    # "Terminate the alliance": prose, as the njudge's TERMINATE takes nothing.
    words_after_are_prose = True

    def process(self, conversation: Conversation, command: Command) -> None:
        with master_part(conversation, command):
            game = conversation.master()
            position = terminate_game(
                conversation.session, conversation.judge, game, conversation.now
            )
            conversation.reply.actions.append(
                f"Game {game.name} ended during {position.phase.code}, with no winner; every "
                "player and observer was told."
            )
