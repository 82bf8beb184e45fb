"""The game master's commands: PROCESS, PAUSE, RESUME, SET DEADLINE and SET GRACE (after
``SIGNON M<game> <password>``).  Every change of the clock is mailed to everyone still
following the game (:mod:`judge.services.schedule`)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from judge.commands.acting import master_part
from judge.commands.base import Audience, Command, Help, Line, MailCommand, Malformed
from judge.db.models import GameStatus
from judge.presenters import format_deadline
from judge.services.deadlines import parse_deadline
from judge.services.endings import ended_how
from judge.services.errors import ServiceError
from judge.services.game_settings import game_zone
from judge.services.games import process_game
from judge.services.proposal_count import awaiting_proposal
from judge.services.schedule import move_deadline, pause_game, resume_game, set_grace
from judge.services.unit_of_work import write_changes

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["MAX_GRACE_HOURS", "Pause", "Process", "Resume", "SetDeadline", "SetGrace"]


class Process(MailCommand):
    """``PROCESS``: adjudicate the current phase now."""

    name = "PROCESS"
    help = Help(
        usage=("PROCESS",),
        description="adjudicate the current phase now",
        audience=Audience.MASTER,
    )

    def process(self, conversation: Conversation, command: Command) -> None:
        with master_part(conversation, command):
            game = conversation.master()
            waiting = awaiting_proposal(conversation.session, game)
            if waiting is not None:
                # House rule 8.4: the phase is held for the master's decision.
                raise ServiceError(
                    f"proposal {waiting.number} awaits your ACCEPT or DECLINE: write "
                    f"'ACCEPT {waiting.number}' to end the game on it, or "
                    f"'DECLINE {waiting.number}' to go on and process {game.phase}"
                )
            # Adjudication reads the orders from the database: the batch's go there first.
            write_changes(conversation.session, conversation.work)
            outcome = process_game(
                conversation.session, conversation.judge, game.name, conversation.now
            )
            if outcome is None and game.status == GameStatus.FINISHED:
                # The players' votes ended it as the phase was processed.
                conversation.reply.actions.append(f"Game {game.name} is over: {ended_how(game)}.")
                return
            if outcome is None:
                raise ServiceError(f"game {game.name} has no phase to process")
            conversation.reply.actions.append(
                f"Processed {outcome.before.phase.code}; now {game.phase}."
            )


class Pause(MailCommand):
    """``PAUSE``: stop the game's clock."""

    name = "PAUSE"
    help = Help(
        usage=("PAUSE",),
        description=(
            "stop the game: no phase is processed at its deadline, and no reminder is "
            "sent, until RESUME; every player and observer is told"
        ),
        audience=Audience.MASTER,
    )

    def process(self, conversation: Conversation, command: Command) -> None:
        with master_part(conversation, command):
            game = conversation.master()
            pause_game(conversation.session, conversation.judge, game, conversation.now)
            conversation.reply.actions.append(
                f"Game {game.name} paused. Every player and observer was told."
            )


class Resume(MailCommand):
    """``RESUME``: start the clock again."""

    name = "RESUME"
    help = Help(
        usage=("RESUME",),
        description=(
            "start a paused game's clock again (a deadline that passed while paused gives "
            "the players a full phase again); every player and observer is told the deadline"
        ),
        audience=Audience.MASTER,
    )

    def process(self, conversation: Conversation, command: Command) -> None:
        with master_part(conversation, command):
            game = conversation.master()
            resume_game(conversation.session, conversation.judge, game, conversation.now)
            when = (
                format_deadline(game.deadline, game_zone(game, conversation.judge))
                if game.deadline
                else "none"
            )
            conversation.reply.actions.append(
                f"Game {game.name} resumed; the deadline is {when}. Every player and observer "
                "was told."
            )


class SetDeadline(MailCommand):
    """``SET DEADLINE <date and time>``, in the game's time zone."""

    name = "SET DEADLINE"
    help = Help(
        usage=("SET DEADLINE <YYYY-MM-DD HH:MM>",),
        description=(
            "move the deadline of the current phase (in the game's time zone); every player "
            "and observer is told"
        ),
        audience=Audience.MASTER,
    )

    def parse(self, line: Line) -> Command:
        parts = line.text.strip().split(None, 2)
        date_text = parts[2].strip() if len(parts) == 3 else ""
        if not date_text:
            raise Malformed(
                "SET DEADLINE needs the new date and time, as in 'SET DEADLINE 2024-03-05 20:00'"
            )
        return line.command(self.name, (date_text,))

    def process(self, conversation: Conversation, command: Command) -> None:
        with master_part(conversation, command):
            game = conversation.master()
            text = " ".join(command.args)
            try:
                when = parse_deadline(text, game_zone(game, conversation.judge))
            except ValueError as err:
                raise ServiceError(str(err)) from None
            moved = move_deadline(
                conversation.session, conversation.judge, game, when, conversation.now
            )
            told = " Every player and observer was told." if moved else ""
            zone = game_zone(game, conversation.judge)
            conversation.reply.actions.append(
                f"Deadline set to {format_deadline(when, zone)}.{told}"
            )


#: The longest grace SET GRACE takes, in hours: the game file's own bound (two weeks).
MAX_GRACE_HOURS = 24 * 14
# Hours as SET GRACE reads them: digits, perhaps a decimal part; bounded, so linear.
_HOURS = re.compile(r"\d{1,6}(?:\.\d{1,3})?")


class SetGrace(MailCommand):
    """``SET GRACE <hours>``: the grace period of the current phase's kind."""

    name = "SET GRACE"
    help = Help(
        usage=("SET GRACE <hours>",),
        description=(
            "how many hours after the deadline late orders are still taken, for the phases "
            f"of the current phase's kind (0 to {MAX_GRACE_HOURS}); every player and observer "
            "is told"
        ),
        audience=Audience.MASTER,
    )

    def parse(self, line: Line) -> Command:
        args = line.args
        example = f"a number from 0 to {MAX_GRACE_HOURS}, as in 'SET GRACE 12'"
        if len(args) == 2 and line.arg_keys[1] in ("HOURS", "HOUR", "H"):
            args = args[:1]
        if len(args) != 1:
            raise Malformed(f"SET GRACE needs the hours of grace, {example}")
        text = args[0]
        if text.startswith("-") and _HOURS.fullmatch(text[1:]):
            raise Malformed(f"SET GRACE cannot be negative ({text}): give {example}")
        if not _HOURS.fullmatch(text):
            raise Malformed(f"SET GRACE takes a number of hours, not {text!r}: give {example}")
        if float(text) > MAX_GRACE_HOURS:
            raise Malformed(
                f"SET GRACE {text} is more than the longest grace, {MAX_GRACE_HOURS} hours "
                f"(two weeks): give {example}"
            )
        return line.command(self.name, (text,))

    def process(self, conversation: Conversation, command: Command) -> None:
        with master_part(conversation, command):
            game = conversation.master()
            hours = float(command.args[0])
            kind, before = set_grace(
                conversation.session, conversation.judge, game, hours, conversation.now
            )
            word = kind.word.lower()
            if hours == before:
                conversation.reply.actions.append(
                    f"The grace of {word} phases is already {hours:g} hours; nothing changed."
                )
                return
            conversation.reply.actions.append(
                f"The grace of {word} phases is now {hours:g} hours (it was {before:g}). "
                "Every player and observer was told."
            )
