"""CLEAR: drop the player's orders for this phase."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.commands.base import Audience, Command, Help, MailCommand

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["Clear"]


class Clear(MailCommand):
    """``CLEAR``, alone on its line."""

    name = "CLEAR"
    help = Help(
        usage=("CLEAR",),
        description="drop your orders for this phase",
        audience=Audience.PLAYER,
        guide="  CLEAR drops your orders for this phase.",
    )

    def process(self, conversation: Conversation, command: Command) -> None:
        game, player = conversation.player()
        conversation.work.orders.retire(conversation.session, game, player, None)
        conversation.reply.actions.append("Your orders for this phase were cleared.")
