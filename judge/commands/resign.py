"""RESIGN: a player leaves the game (the game master is told)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.commands.base import Audience, Command, Help, MailCommand
from judge.db.models import PlayerStatus
from judge.services import mailings
from judge.services.observers import stop_watching, stopped

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
        signed = conversation.signed
        if signed is not None and signed.observer is not None:
            # An observer's RESIGN (after OBSERVE or SIGNON O<game>) ends watching, and
            # the sign-on: the lines after it belong to no game.
            stop_watching(conversation.session, signed.observer)
            conversation.reply.paragraphs.append(stopped(signed.game))
            conversation.signon_refused()
            return
        game, player = conversation.player()
        player.status = PlayerStatus.RESIGNED
        conversation.reply.actions.append(
            f"You have resigned from {game.name}. The game master is told."
        )
        mailings.send_player_resigned(
            conversation.session, conversation.judge, game, player, conversation.now
        )
