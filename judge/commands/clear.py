"""CLEAR: drop the player's orders for this phase or, inside a PHASE section (or a
two-season heading), that phase's orders sent ahead only."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.commands.base import Audience, Command, Help, MailCommand
from judge.services import future_orders
from judge.services.errors import ServiceError
from judge.services.phase_sections import phase_words

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["Clear"]


class Clear(MailCommand):
    """``CLEAR``, alone on its line."""

    name = "CLEAR"
    help = Help(
        usage=("CLEAR",),
        description="drop your orders for this phase (after PHASE: those sent ahead for it)",
        audience=Audience.PLAYER,
        guide="  CLEAR drops your orders for this phase.",
    )

    def process(self, conversation: Conversation, command: Command) -> None:
        game, player = conversation.player()
        section = conversation.section
        if section is not None and not section.now:
            if section.phase is None:
                raise ServiceError(section.refusal)
            words = phase_words(section.phase)
            if future_orders.clear(conversation.session, game, player, section.phase.code):
                conversation.reply.actions.append(
                    f"Your orders sent ahead for {words} were cleared."
                )
            else:
                conversation.reply.actions.append(
                    f"You had no orders sent ahead for {words}: nothing was cleared."
                )
            return
        conversation.work.orders.retire(conversation.session, game, player, None)
        conversation.reply.actions.append("Your orders for this phase were cleared.")
