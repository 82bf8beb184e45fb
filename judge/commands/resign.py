"""RESIGN: a player leaves the game (the game master is told)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.commands.base import Audience, Command, Help, MailCommand
from judge.db.models import PlayerStatus
from judge.services import mailings

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["Resign"]


class Resign(MailCommand):
    """``RESIGN``, alone on its line."""

    name = "RESIGN"
    help = Help(
        usage=("RESIGN",),
        description="leave the game (the game master is told)",
        audience=Audience.PLAYER,
    )

    def process(self, conversation: Conversation, command: Command) -> None:
        game, player = conversation.player()
        player.status = PlayerStatus.RESIGNED
        conversation.reply.actions.append(
            f"You have resigned from {game.name}. The game master is told."
        )
        mailings.send_player_resigned(
            conversation.session, conversation.judge, game, player, conversation.now
        )
