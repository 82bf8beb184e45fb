"""The game master's commands: PROCESS, PAUSE, RESUME and SET DEADLINE (after
``SIGNON M<game> <password>``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.commands.base import Audience, Command, Help, Line, MailCommand, Malformed
from judge.db.models import GameStatus
from judge.presenters import format_deadline
from judge.services.deadlines import next_deadline, parse_deadline
from judge.services.errors import ServiceError
from judge.services.game_settings import game_settings, game_zone
from judge.services.games import process_game, set_deadline
from judge.services.unit_of_work import write_changes

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["Pause", "Process", "Resume", "SetDeadline"]


class Process(MailCommand):
    """``PROCESS``: adjudicate the current phase now."""

    name = "PROCESS"
    help = Help(
        usage=("PROCESS",),
        description="adjudicate the current phase now",
        audience=Audience.MASTER,
    )

    def process(self, conversation: Conversation, command: Command) -> None:
        game = conversation.master()
        # Adjudication reads the orders from the database: the batch's go there first.
        write_changes(conversation.session, conversation.work)
        outcome = process_game(
            conversation.session, conversation.judge, game.name, conversation.now
        )
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
            "sent, until RESUME"
        ),
        audience=Audience.MASTER,
    )

    def process(self, conversation: Conversation, command: Command) -> None:
        game = conversation.master()
        if game.status != GameStatus.ACTIVE:
            raise ServiceError(f"game {game.name} is {game.status}, not active")
        game.status = GameStatus.PAUSED
        conversation.reply.actions.append(f"Game {game.name} paused.")


class Resume(MailCommand):
    """``RESUME``: start the clock again."""

    name = "RESUME"
    help = Help(
        usage=("RESUME",),
        description=(
            "start a paused game's clock again (a deadline that passed while paused gives "
            "the players a full phase again)"
        ),
        audience=Audience.MASTER,
    )

    def process(self, conversation: Conversation, command: Command) -> None:
        game = conversation.master()
        if game.status != GameStatus.PAUSED:
            raise ServiceError(f"game {game.name} is not paused")
        game.status = GameStatus.ACTIVE
        now = conversation.now
        if game.deadline is not None and game.deadline <= now:
            # The deadline passed while paused: the players get a full phase again.
            position = conversation.position(game)
            fresh = next_deadline(
                now, position.phase.kind, game_settings(game), game_zone(game, conversation.judge)
            )
            set_deadline(conversation.session, game, fresh)
        when = (
            format_deadline(game.deadline, game_zone(game, conversation.judge))
            if game.deadline
            else "none"
        )
        conversation.reply.actions.append(f"Game {game.name} resumed; the deadline is {when}.")


class SetDeadline(MailCommand):
    """``SET DEADLINE <date and time>``, in the game's time zone."""

    name = "SET DEADLINE"
    help = Help(
        usage=("SET DEADLINE <YYYY-MM-DD HH:MM>",),
        description="move the deadline of the current phase (in the game's time zone)",
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
        game = conversation.master()
        text = " ".join(command.args)
        try:
            when = parse_deadline(text, game_zone(game, conversation.judge))
        except ValueError as err:
            raise ServiceError(str(err)) from None
        if when <= conversation.now:
            raise ServiceError("the new deadline is in the past")
        set_deadline(conversation.session, game, when)
        conversation.reply.actions.append(
            f"Deadline set to {format_deadline(when, game_zone(game, conversation.judge))}."
        )
