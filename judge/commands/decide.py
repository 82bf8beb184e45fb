"""``ACCEPT <n>`` and ``DECLINE <n>``: the game master's decision on a proposal that
passed while more than half of the players who sent orders made no mention of it (house
rule 8.4; after ``SIGNON M<game> <password>``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy.orm import Session

from judge.commands.acting import master_part
from judge.commands.base import Audience, Command, Help, Line, MailCommand, Malformed
from judge.commands.proposals import proposal_number
from judge.db.models import Game, GameStatus
from judge.services.endings import ended_how
from judge.services.games import process_game
from judge.services.proposal_count import accept, awaiting_proposal, decline
from judge.services.unit_of_work import write_changes

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["Accept", "Decline"]


def _number(name: str, line: Line) -> Command:
    """``line`` as ``<name> <n>``; Malformed names what was wrong."""
    args = line.args
    example = f"as in '{name} 1'"
    if len(args) != 1:
        raise Malformed(f"{name} needs the number of the proposal and nothing else, {example}")
    text = args[0]
    number = proposal_number(text)
    if number is None:
        shown = text if len(text) <= 20 else text[:20] + "..."
        raise Malformed(f"{name}: {shown!r} is not a proposal's number; give it {example}")
    return line.command(name, (str(number),))


def _why_not(session: Session, game: Game) -> str:
    """Why the phase a DECLINE let go was not processed after all: another proposal of
    the same vote ended the game, or awaits the master in its turn."""
    if game.status == GameStatus.FINISHED:
        return f"the game is over, {ended_how(game)}"
    waiting = awaiting_proposal(session, game)
    if waiting is not None:
        return f"proposal {waiting.number} awaits your ACCEPT or DECLINE in its turn"
    return f"game {game.name} has no phase to process"


class Accept(MailCommand):
    """``ACCEPT <n>``: the game ends now on proposal ``n``'s terms."""

    name = "ACCEPT"
    help = Help(
        usage=("ACCEPT <n>",),
        description=(
            "end the game on proposal <n>, which passed and awaits your decision because "
            "most players who sent orders did not mention it (house rule 8.4)"
        ),
        audience=Audience.MASTER,
    )

    def parse(self, line: Line) -> Command:
        return _number(self.name, line)

    def process(self, conversation: Conversation, command: Command) -> None:
        with master_part(conversation, command):
            game = conversation.master()
            number = int(command.args[0])
            accept(conversation.session, conversation.judge, game, number, conversation.now)
            conversation.reply.actions.append(
                f"Proposal {number} accepted: game {game.name} is over, and every player "
                "and observer gets its final mail."
            )


class Decline(MailCommand):
    """``DECLINE <n>``: the game goes on, and the phase it held is processed now."""

    name = "DECLINE"
    help = Help(
        usage=("DECLINE <n>",),
        description=(
            "do not end the game on proposal <n>, which awaits your decision (house rule "
            "8.4): everyone is told the game goes on, and the phase is processed at once"
        ),
        audience=Audience.MASTER,
    )

    def parse(self, line: Line) -> Command:
        return _number(self.name, line)

    def process(self, conversation: Conversation, command: Command) -> None:
        with master_part(conversation, command):
            game = conversation.master()
            number = int(command.args[0])
            session, judge, now = conversation.session, conversation.judge, conversation.now
            held = game.phase
            decline(session, judge, game, number, now)
            # Adjudication reads the orders from the database: the batch's go there first
            # (as PROCESS does).
            write_changes(session, conversation.work)
            outcome = process_game(session, judge, game.name, now)
            if outcome is None:
                conversation.reply.actions.append(
                    f"Proposal {number} declined: the game goes on; everyone was told. "
                    f"{held} was not processed: {_why_not(session, game)}."
                )
                return
            conversation.reply.actions.append(
                f"Proposal {number} declined: the game goes on; everyone was told. "
                f"Processed {outcome.before.phase.code}; now {game.phase}."
            )
