"""The game master's command on a game's seats: EJECT (after ``SIGNON M<game>
<password>``).  The game master's forms of SET PASSWORD and SET ADDRESS are in
:mod:`judge.commands.settings`, beside the players' (one command each, told apart by who
is signed on)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.commands.acting import master_part
from judge.commands.base import Audience, Command, Help, Line, MailCommand, Malformed
from judge.services import seats

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["Eject"]


class Eject(MailCommand):
    """``EJECT <power>``: the power's initial or name."""

    name = "EJECT"
    help = Help(
        usage=("EJECT <power>",),
        description=(
            "eject a power's player: the seat is open and the power in civil disorder until "
            "a new player takes it over (the player and everyone else are told)"
        ),
        audience=Audience.MASTER,
    )

    def parse(self, line: Line) -> Command:
        if len(line.args) != 1:
            raise Malformed("EJECT takes one power, as in 'EJECT England' or 'EJECT E'")
        return line.command(self.name, line.args)

    def process(self, conversation: Conversation, command: Command) -> None:
        with master_part(conversation, command):
            game = conversation.master()
            seats.eject(conversation, game, command.args[0])
