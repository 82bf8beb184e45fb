"""RESIGN: a player leaves the game; the seat is open (the game master, and everyone
still following the game, are told)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.commands.base import Audience, Command, Help, MailCommand
from judge.services.observers import stop_watching, stopped
from judge.services.seats import resign

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["Resign"]


class Resign(MailCommand):
    """``RESIGN``, alone on its line."""

    name = "RESIGN"
    help = Help(
        usage=("RESIGN",),
        description=(
            "leave the game: the seat is open for a new player (the game master and the "
            "other players are told)"
        ),
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
        # Resigned from another address: the registered one hears of it too.
        also = signed.copy_to if signed is not None else None
        resign(conversation.session, conversation.judge, game, player, conversation.now, also)
        # The answer is a plain reply (no order block): nothing after this is done for
        # the power (see Conversation.player).
        conversation.reply.actions.append(
            f"You have resigned from {game.name}: {player.power}'s seat is open for a new "
            "player, and the game master and the other players are told. Nothing after "
            "RESIGN in this message is done for you."
        )
