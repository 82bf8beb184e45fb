"""``ROLLBACK [<phase>] [<reason>]``: the game master takes the game back to the start of
an earlier phase (after ``SIGNON M<game> <password>``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.commands.acting import master_part
from judge.commands.base import Audience, Command, Help, Line, MailCommand, Malformed
from judge.engine.phases import Phase
from judge.presenters import and_list, format_deadline
from judge.services.game_settings import game_zone
from judge.services.rollback import MAX_REASON, RolledBack, roll_back
from judge.services.unit_of_work import write_changes

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["Rollback"]

_HOW = (
    "write 'ROLLBACK' for the phase before the current one, or 'ROLLBACK <phase>' with "
    "a phase code such as S1901M, F1901R or W1901A, then the reason if you like"
)


class Rollback(MailCommand):
    """``ROLLBACK [<phase>] [<reason>]``: the first word is the phase when it holds a
    digit (a word with a digit that is no phase code is refused, never read as the
    reason); the rest of the line is the reason, told to everyone."""

    name = "ROLLBACK"
    help = Help(
        usage=("ROLLBACK [<phase>] [<reason>]",),
        description=(
            "go back to the start of an earlier phase (the one before the current one, or "
            "<phase> such as S1901M), with its orders and a new deadline; everyone is told "
            "why, and HISTORY keeps what was undone; a game finished by a win or "
            "TERMINATE goes on again"
        ),
        audience=Audience.MASTER,
    )

    def parse(self, line: Line) -> Command:
        args, keys = line.args, line.arg_keys
        code = ""
        if args and any(char.isdigit() for char in args[0]):
            try:
                code = Phase.parse(keys[0]).code
            except ValueError:
                raise Malformed(f"ROLLBACK: {args[0]!r} is not a phase code; {_HOW}") from None
            args = args[1:]
        reason = " ".join(args)
        if len(reason) > MAX_REASON:
            raise Malformed(
                f"ROLLBACK: the reason is {len(reason)} characters long; keep it to "
                f"{MAX_REASON} or fewer"
            )
        return line.command(self.name, (code, reason))

    def process(self, conversation: Conversation, command: Command) -> None:
        with master_part(conversation, command):
            game = conversation.master()
            code, reason = command.args
            # The batch's orders go to the database first: those of the undone phases are
            # archived with them.
            write_changes(conversation.session, conversation.work)
            done = roll_back(
                conversation.session,
                conversation.judge,
                game,
                code or None,
                reason,
                conversation.now,
            )
            conversation.work.forget_phases(game)
            zone = game_zone(game, conversation.judge)
            assert game.deadline is not None
            # A paragraph, not an action: the list of seats put back may be long, and actions
            # are cut short.
            conversation.reply.paragraphs.append(
                _report(done, format_deadline(game.deadline, zone))
            )


def _report(done: RolledBack, deadline: str) -> str:
    """The game master's reply: what the rollback did, a line each."""
    later = len(done.undone) - 1
    lines = [
        f"Rolled back from {done.from_phase} to the start of {done.to_phase}.",
        f"The new deadline is {deadline}.",
        f"Undone: the results of {and_list(list(done.undone))}"
        + (f", and {_count(done.orders, 'order line')} of the later phases" if later else "")
        + "; HISTORY still shows them.",
    ]
    if done.reopened:
        lines.append("The game had finished: it goes on again, with no winner yet.")
    if not done.seats_known:
        lines.append(
            f"The players' missed phases and civil disorder could not be put back "
            f"({done.to_phase} was processed before the judge kept them): they stay as "
            "they are."
        )
    lines += [f"Put back: {line}." for line in done.restored]
    lines.append(f"{_count(done.told, 'reader')} of the game told by mail.")
    return "\n".join(lines)


def _count(number: int, word: str) -> str:
    return f"{number} {word}" + ("" if number == 1 else "s")
