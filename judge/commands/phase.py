"""PHASE, ENDPHASE and the two-season headings: the orders after them are for a later
phase (``PHASE Fall 1902 Movement``, ``PHASE F1902M``) or, in a two-season game, for the
season's retreats (``RETREATS``) and the year's adjustments (``BUILDS``,
``ADJUSTMENTS``, ``REMOVALS``), up to ``ENDPHASE``, the next PHASE or heading, or the end
of the message.

They open a section of the message (kept on the conversation), not a block: the other
commands written inside it run as usual; only order lines, IF blocks and CLEAR belong to
the section's phase.  A refused line still opens its section, so that its orders are
refused with it, never taken for another phase.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from judge.commands.base import Audience, Command, Help, Line, MailCommand
from judge.commands.orders import playing
from judge.services.errors import ServiceError
from judge.services.phase_sections import (
    Section,
    heading_section,
    names_a_phase,
    phase_section,
    read_phase,
)

if TYPE_CHECKING:
    from judge.db.models import Game
    from judge.engine.phases import Phase
    from judge.services.conversation import Conversation

__all__ = ["EndPhase", "Heading", "PhaseCommand"]


class PhaseCommand(MailCommand):
    """``PHASE <season> <year> [<kind>]`` or ``PHASE <code>``; a line whose next word is
    neither a season nor a phase code is prose ("Phase two of our plan")."""

    name = "PHASE"
    # A long word is refused by the phase reader, so that the line still opens its
    # (refused) section: its orders are refused with it, never taken for now.
    long_words = True
    help = Help(
        usage=("PHASE <season> <year> [<kind>]", "PHASE <code>"),
        description=(
            "the orders after it (up to ENDPHASE or the next PHASE) are for that later "
            "phase, up to 5 years ahead: checked when it begins"
        ),
        audience=Audience.PLAYER,
    )

    def parse(self, line: Line) -> Command | None:
        # By the words the phase is read from: a PHASE line written a little off is
        # refused with its orders, never taken for prose whose orders count now.
        if not names_a_phase(line.args):
            return None
        return line.command(self.name, line.args)

    def process(self, conversation: Conversation, command: Command) -> None:
        _open(
            conversation, self.name, command,
            lambda game, current, line: phase_section(
                game, current, line, read_phase(command.args)
            ),
        )  # fmt: skip


class EndPhase(MailCommand):
    """``ENDPHASE`` (or ``END PHASE``): the lines after it are for the current phase."""

    name = "ENDPHASE"
    spellings = ("END PHASE",)
    help = Help(
        usage=("ENDPHASE",),
        description="ends the orders of a PHASE line or a heading: those after it are for now",
        audience=Audience.PLAYER,
    )

    def process(self, conversation: Conversation, command: Command) -> None:
        if conversation.section is None:
            raise ServiceError(
                "ENDPHASE ends the orders after a PHASE line (or a heading such as "
                "RETREATS), and none came before it"
            )
        conversation.section = None


class Heading(MailCommand):
    """A two-season game's heading, a word alone on its line: ``RETREATS`` (this
    season's retreats) or ``BUILDS`` / ``ADJUSTMENTS`` / ``REMOVALS`` (this year's
    adjustments, in Autumn).  With words after it, the line is prose."""

    words_after_are_prose = True

    def __init__(self, name: str) -> None:
        self.name = name
        if name == "RETREATS":
            what = "two-season games: the orders after it are this season's retreats"
        else:
            what = "two-season games, Autumn: the orders after it are this year's adjustments"
        self.help = Help(usage=(name,), description=what, audience=Audience.PLAYER)

    def process(self, conversation: Conversation, command: Command) -> None:
        _open(
            conversation, self.name, command,
            lambda game, current, line: heading_section(game, current, self.name, line),
        )  # fmt: skip


def _open(
    conversation: Conversation,
    word: str,
    command: Command,
    section_of: Callable[[Game, Phase, str], Section],
) -> None:
    """Open the section of ``command`` (a PHASE line or a heading, ``word``): the one
    ``section_of`` gives for the game at its current phase, or, when the line is refused
    (``ServiceError``, ``ValueError``), a refused section, so that its orders are refused
    with it up to the section's end."""
    line = command.line.strip()
    try:
        game, _player = playing(conversation)
        section = section_of(game, conversation.position(game).phase, line)
    except (ServiceError, ValueError) as err:
        conversation.section = Section(word, line, None)
        raise ServiceError(str(err)) from None
    conversation.section = section
