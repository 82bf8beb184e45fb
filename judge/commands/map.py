"""MAP: the picture of a game's board, or of a phase as it was played, sent with the
reply (anyone may ask, signed on or not, as for HISTORY)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.commands.base import GAME_RE, Audience, Command, Help, Line, MailCommand
from judge.db.models import PictureKind
from judge.render import fill
from judge.services.errors import ServiceError
from judge.services.phase_sections import names_a_phase, phase_words, read_phase
from judge.services.pictures import map_attachment, map_view

if TYPE_CHECKING:
    from judge.db.models import Game
    from judge.engine.phases import Phase
    from judge.services.conversation import Conversation

__all__ = ["MAX_MAPS", "Map"]

#: The most MAP commands one message gets answered: a picture takes a while to draw.
MAX_MAPS = 3

_FORMS = (
    "MAP <game> [<phase>], the phase as a code (F1901M) or in words (Fall 1901 Movement, Fall 1901)"
)


class Map(MailCommand):
    """``MAP [<game>] [<phase>]``: the phase as a code or in words, as PHASE reads it."""

    name = "MAP"
    help = Help(
        usage=("MAP [game] [phase]",),
        description=(
            "the map picture of the game as it stands, or of a phase played (its orders "
            "drawn), sent with the reply"
        ),
        audience=Audience.ANYONE,
    )

    def parse(self, line: Line) -> Command | None:
        args = line.args
        game_first = bool(args) and GAME_RE.fullmatch(args[0].lower()) is not None
        # MAP, MAP <game>, MAP <game> <word> (read as a phase, or refused saying why),
        # and a game and a phase, or a phase alone, in words; any other line that starts
        # with the word is prose ("Map of the north"), read as orders.
        if (
            (len(args) <= 1 and (not args or game_first))
            or (len(args) == 2 and game_first)
            or (game_first and names_a_phase(args[1:]))
            or names_a_phase(args)
        ):
            return line.command(self.name, args)
        return None

    def process(self, conversation: Conversation, command: Command) -> None:
        reply = conversation.reply
        if reply.maps >= MAX_MAPS:
            raise ServiceError(
                f"only {MAX_MAPS} MAP commands are answered in one message (a picture takes "
                "a while to draw): send this one again in another message"
            )
        game, phase = _game_and_phase(conversation, command.args)
        view = map_view(conversation.session, game, phase, conversation.now)
        attachment = map_attachment(
            conversation.session, conversation.judge, game, view, conversation.now
        )
        reply.maps += 1
        if attachment not in reply.attachments:
            reply.attachments.append(attachment)
        words = phase_words(view.phase)
        if view.kind is PictureKind.BOARD:
            what = f"The map of game {game.name} as it stands, {words},"
        else:
            what = f"The map of game {game.name} for {words}, with the orders given in it,"
        reply.paragraphs.append(
            fill(f"{what} is attached to this reply as a picture: {attachment['filename']}.")
        )


def _game_and_phase(conversation: Conversation, args: tuple[str, ...]) -> tuple[Game, Phase | None]:
    """The game ``args`` name (their first word; else the game signed on to) and the
    phase the words after it name (None: none)."""
    words = list(args)
    game = conversation.game(words[0]) if words else None
    if game is not None:
        words = words[1:]
    elif words and not names_a_phase(words):
        raise ServiceError(f"there is no game called {words[0]!r}: write {_FORMS}")
    elif conversation.signed is not None:
        game = conversation.signed.game
    else:
        raise ServiceError(f"name the game, e.g. MAP winter01, or sign on first: write {_FORMS}")
    if not words:
        return game, None
    try:
        return game, read_phase(words, advice=False)
    except ValueError as err:
        raise ServiceError(f"{err}; write {_FORMS}") from None
