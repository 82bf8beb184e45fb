"""SET PRESS and the njudge's press settings: the game master sets the game's kind of
press (``none``, ``white``, ``grey``, ``white/grey``, ``grey/white``, ``fake``; see
:class:`judge.config.Press`) and whether press to some powers only is allowed
(``SET PARTIAL`` / ``SET NOPARTIAL``); everyone following the game is told."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.commands.acting import master_part
from judge.commands.base import Audience, Command, Help, Line, MailCommand, Malformed
from judge.config import PRESS_KINDS, Press
from judge.services.press_settings import change_press

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["SetKind", "SetPartial", "SetPress"]

_KINDS = ", ".join(PRESS_KINDS)


class SetPress(MailCommand):
    """``SET PRESS <kind>``."""

    name = "SET PRESS"
    help = Help(
        usage=("SET PRESS <kind>",),
        description=(
            f"the game's press: one of {_KINDS} (press to and from the game master is "
            "always allowed); everyone in the game is told"
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
        _change(conversation, command, kind=Press(command.args[0]))


class SetKind(MailCommand):
    """``SET WHITE``, ``SET GREY``, ``SET NOPRESS``: the njudge's short forms of
    ``SET PRESS white``, ``grey`` and ``none``."""

    def __init__(self, word: str, kind: Press) -> None:
        self.name = f"SET {word}"
        self.kind = kind
        self.spellings = ("SET NO PRESS",) if word == "NOPRESS" else ()
        self.help = Help(
            usage=(self.name,),
            description=f"the njudge's form of SET PRESS {kind.value}",
            audience=Audience.MASTER,
        )

    def process(self, conversation: Conversation, command: Command) -> None:
        _change(conversation, command, kind=self.kind)


class SetPartial(MailCommand):
    """``SET PARTIAL`` / ``SET NOPARTIAL``: press to some powers only is allowed, or
    broadcasts only (and press to the game master)."""

    def __init__(self, allowed: bool) -> None:
        self.allowed = allowed
        self.name = "SET PARTIAL" if allowed else "SET NOPARTIAL"
        self.spellings = () if allowed else ("SET NO PARTIAL",)
        self.help = Help(
            usage=(self.name,),
            description=(
                "allow press to some powers only (the default)"
                if allowed
                else "allow broadcasts only (and press to the game master)"
            ),
            audience=Audience.MASTER,
        )

    def process(self, conversation: Conversation, command: Command) -> None:
        _change(conversation, command, partial=self.allowed)


def _change(
    conversation: Conversation,
    command: Command,
    *,
    kind: Press | None = None,
    partial: bool | None = None,
) -> None:
    """Change the game's press as the master asked, and say what it is now."""
    with master_part(conversation, command):
        game = conversation.master()
        changed = change_press(
            conversation.session, conversation.judge, game, conversation.now,
            kind=kind, partial=partial,
        )  # fmt: skip
        if changed is None:
            conversation.reply.actions.append(
                f"The press of {game.name} is already as asked; nothing changed."
            )
            return
        before, after = changed
        conversation.reply.actions.append(
            f"The press of {game.name} is now: {after} (it was: {before}). Everyone in the "
            "game is told."
        )
