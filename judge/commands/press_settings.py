"""SET PRESS: the game master sets the game's kind of press (``none``, ``white``,
``grey``, ``white/grey``, ``grey/white``, ``fake``; see :class:`judge.config.Press`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.commands.base import Audience, Command, Help, Line, MailCommand, Malformed
from judge.commands.preview import master_part
from judge.config import PRESS_KINDS, Press
from judge.services.press import set_press

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["SetPress"]

_KINDS = ", ".join(PRESS_KINDS)


class SetPress(MailCommand):
    """``SET PRESS <kind>``."""

    name = "SET PRESS"
    help = Help(
        usage=("SET PRESS <kind>",),
        description=(
            f"the game's press: one of {_KINDS} (press to and from the game master is "
            "always allowed)"
        ),
        audience=Audience.MASTER,
    )

    def parse(self, line: Line) -> Command:
        if len(line.args) != 1:
            raise Malformed(f"SET PRESS needs the kind of press, one of {_KINDS}: SET PRESS grey")
        kind = line.args[0].lower().replace("gray", "grey")
        if kind not in PRESS_KINDS:
            raise Malformed(
                f"SET PRESS {line.args[0]}: not a kind of press; the kinds are {_KINDS}"
            )
        return line.command(self.name, (kind,))

    def process(self, conversation: Conversation, command: Command) -> None:
        with master_part(conversation, command):
            game = conversation.master()
            kind = Press(command.args[0])
            before = set_press(game, kind)
            if before is kind:
                conversation.reply.actions.append(
                    f"The press of {game.name} is already {kind.value}; nothing changed."
                )
                return
            conversation.reply.actions.append(
                f"The press of {game.name} is now {kind.value} (it was {before.value})."
            )
