"""The commands that tell: LIST, HELP, HISTORY and SUMMARY (anyone may send them, signed
on or not)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from judge.commands.acting import master_only
from judge.commands.base import GAME_RE, Audience, Command, Help, Line, MailCommand, Malformed
from judge.engine.phases import Phase
from judge.presenters import position_report
from judge.services.errors import ServiceError
from judge.services.game_settings import game_zone, player_zone
from judge.services.listings import all_games, game_listing, phase_reports
from judge.services.press_history import press_history, reader_of
from judge.services.unit_of_work import write_changes

if TYPE_CHECKING:
    from judge.db.models import Game
    from judge.services.conversation import Conversation

__all__ = ["HelpCommand", "History", "List", "Summary"]


class _GameCommand(MailCommand):
    """A command that takes at most a game name (lowercased); without one, the game
    signed on to."""

    def parse(self, line: Line) -> Command:
        args = line.args
        if not args:
            return line.command(self.name)
        game = args[0].lower()
        if len(args) == 1 and GAME_RE.fullmatch(game):
            return line.command(self.name, (game,))
        raise Malformed(
            f"{self.name} takes at most a game name: write '{self.name}' or '{self.name} <game>'"
        )


def _named_or_signed(conversation: Conversation, command: Command) -> Game:
    """The game the command names, else the one signed on to."""
    if command.args:
        game = conversation.game(command.args[0])
        if game is None:
            raise ServiceError(f"there is no game called {command.args[0]!r}")
        return game
    if conversation.signed is not None:
        return conversation.signed.game
    raise ServiceError("name the game, e.g. SUMMARY winter01, or sign on first")


class List(_GameCommand):
    """``LIST [game]``."""

    name = "LIST"
    help = Help(
        usage=("LIST [game]",),
        description=(
            "the games on this judge, or one game's settings, deadlines, players and who has "
            "orders in (its game master also sees the orders, who is late, WAITs, absences "
            "and the observers)"
        ),
        audience=Audience.ANYONE,
    )

    def process(self, conversation: Conversation, command: Command) -> None:
        reply = conversation.reply
        if command.args or conversation.signed is not None:
            game = _named_or_signed(conversation, command)
            # The master's listing shows every power's orders: never in the copy a
            # power gets when the master acts for it (BECOME).
            master_only(conversation, _listing(conversation, game))
            return
        games = all_games(conversation.session)
        if not games:
            reply.paragraphs.append("There are no games on this judge yet.")
            return
        reply.paragraphs.append(
            "Games on this judge:\n"
            + "\n".join(
                f"  {g.name}: {g.status}" + (f", {g.phase}" if g.phase else "") for g in games
            )
        )


def _listing(conversation: Conversation, game: Game) -> str:
    """The listing of ``game`` for the reader: the game master's (signed on as the master
    of this game) or anyone's, with times in the reader's own zone when they have one."""
    signed = conversation.signed
    mine = signed is not None and signed.game.id == game.id
    for_master = mine and signed is not None and signed.is_master
    zone: str | None = None
    if mine and signed is not None and signed.player is not None and not signed.by_master:
        zone = player_zone(game, signed.player, conversation.judge)
    elif mine and signed is not None and signed.observer is not None:
        zone = signed.observer.timezone
    # The listing reads the orders from the database: the batch's go there first.
    write_changes(conversation.session, conversation.work)
    listing = game_listing(
        conversation.session, conversation.judge, game, conversation.now,
        for_master=for_master, reader_zone=zone,
    )  # fmt: skip
    judge = conversation.judge
    mail = judge.renderer.render(
        "all/listing.txt.j2", judge_name=judge.settings.name, game_name=game.name, listing=listing
    )
    return mail.body.rstrip("\n")


class HelpCommand(MailCommand):
    """``HELP`` (words after it are kept, lowercased, and not used yet)."""

    name = "HELP"
    help = Help(usage=("HELP",), description="a summary of the commands", audience=Audience.ANYONE)

    def parse(self, line: Line) -> Command:
        return line.command(self.name, [word.lower() for word in line.args])

    def process(self, conversation: Conversation, command: Command) -> None:
        conversation.reply.paragraphs.append(conversation.commands.help_text)


class History(_GameCommand):
    """``HISTORY [game]``; ``HISTORY <game> PRESS [<phase> | ALL]``."""

    name = "HISTORY"
    help = Help(
        usage=("HISTORY [game]", "HISTORY <game> PRESS [<phase> | ALL]"),
        description=(
            "the results of every processed phase, and what a ROLLBACK undid; with PRESS, "
            "the press you may read again (the most recent, one phase's, or ALL)"
        ),
        audience=Audience.ANYONE,
    )

    def parse(self, line: Line) -> Command:
        args = line.args
        if len(args) < 2 or args[1].upper() != "PRESS":
            return super().parse(line)
        game = args[0].lower()
        which = tuple(word.upper() for word in args[2:])
        if GAME_RE.fullmatch(game) and len(which) <= 1:
            if not which:
                return line.command(self.name, (game, "PRESS"))
            if (read := _all_or_phase(which[0])) is not None:
                return line.command(self.name, (game, "PRESS", read))
        raise Malformed(
            f"write HISTORY <game> PRESS, then a phase (e.g. HISTORY {game[:40]} PRESS "
            "S1901M) or ALL if you like; nothing more"
        )

    def process(self, conversation: Conversation, command: Command) -> None:
        if (
            len(command.args) == 1
            and command.args[0].upper() == "PRESS"
            and conversation.game(command.args[0]) is None
        ):
            # "HISTORY PRESS" with no game called "press": the press of the game signed on to.
            if conversation.signed is None:
                raise ServiceError(
                    "name the game whose press you want: HISTORY <game> PRESS, e.g. "
                    "HISTORY winter01 PRESS (or sign on first)"
                )
            command = replace(command, args=(conversation.signed.game.name, "PRESS"))
        if len(command.args) >= 2:
            _press(conversation, command)
            return
        game = _named_or_signed(conversation, command)
        zone = game_zone(game, conversation.judge)
        reports = phase_reports(conversation.session, game, zone)
        if not reports:
            conversation.reply.paragraphs.append(f"No phase of {game.name} has been processed yet.")
            return
        conversation.reply.paragraphs += reports


def _all_or_phase(word: str) -> str | None:
    """``word`` (upper case) as HISTORY <game> PRESS takes it: ``ALL``, or a phase in
    its code (read as ROLLBACK reads one: ``A1901M`` is F1901M); None when neither."""
    if word == "ALL":
        return word
    try:
        return Phase.parse(word).code
    except ValueError:
        return None


def _press(conversation: Conversation, command: Command) -> None:
    """``HISTORY <game> PRESS [...]``: the press the reader may read again; the game
    master's view (acting for a power or not) never reaches a power's copy."""
    game = _named_or_signed(conversation, command)
    which = command.args[2] if len(command.args) > 2 else None
    reader = reader_of(conversation, game)
    # One paragraph: an order confirmation lists its paragraphs with no blank line between.
    text = "\n\n".join(press_history(conversation, game, reader, which))
    if reader.role == "master":
        master_only(conversation, text)
        return
    conversation.reply.paragraphs.append(text)


class Summary(_GameCommand):
    """``SUMMARY [game]``."""

    name = "SUMMARY"
    help = Help(
        usage=("SUMMARY [game]",),
        description="the current position and supply centres",
        audience=Audience.ANYONE,
    )

    def process(self, conversation: Conversation, command: Command) -> None:
        game = _named_or_signed(conversation, command)
        if game.phase is None:
            raise ServiceError(f"game {game.name} has not started")
        position = conversation.position(game)
        conversation.reply.paragraphs.append(
            f"Summary of {game.name}, {position.phase.describe()}:\n\n{position_report(position)}"
        )
