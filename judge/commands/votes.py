"""The njudge's standing votes to end a game: ``SET DRAW [<powers>]``, ``SET NODRAW``,
``SET CONCEDE <power>`` and ``SET NOCONCEDE`` (:mod:`judge.services.draw_votes`).

A player votes for its own power; the game master votes only while acting for a power
(``BECOME``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from judge.commands.base import (
    Audience,
    Command,
    Help,
    Line,
    MailCommand,
    Malformed,
    keyword,
    read_power_names,
)
from judge.db.models import Game, Player, VoteKind
from judge.services import draw_votes
from judge.services.errors import ServiceError

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["SetConcede", "SetDraw", "SetNoconcede", "SetNodraw", "read_powers"]

#: The most powers a vote's line is read for (a map has far fewer).
_MAX_PARTS = 40


def read_powers(words: Sequence[str], what: str) -> tuple[str, ...]:
    """The powers ``words`` name, each once, in the order named: initials run together
    (``AEF``, up to all seven), or names or initials apart (``Austria, England F``);
    commas and ``AND`` between them.  Raises :class:`Malformed` naming a word that names
    no power.

    A word of distinct initials is read as initials, as ``PRESS TO FR`` is (no power's
    name is spelt with distinct initials only, so ``FRA`` is France, Russia and Austria).

    >>> read_powers(["AEFGIRT"], "SET DRAW")
    ('Austria', 'England', 'France', 'Germany', 'Italy', 'Russia', 'Turkey')
    >>> read_powers(["Austria,", "e", "and", "france"], "SET DRAW")
    ('Austria', 'England', 'France')
    """
    if sum(1 + word.count(",") for word in words) > _MAX_PARTS:
        raise Malformed(f"{what}: too many words; name each power once (SET DRAW AEF)")
    powers, _ = read_power_names(
        words,
        lambda part: (
            f"{what}: {part!r} names no power; write the powers' initials run together "
            "(AEF) or their names (Austria, England, France)"
        ),
    )
    return powers


def _voter(conversation: Conversation, what: str) -> tuple[Game, Player]:
    """The game and the power that votes: the player signed on, or the power the game
    master acts for.  Raises ServiceError for anyone else."""
    signed = conversation.signed
    if signed is not None and signed.is_master and signed.player is None:
        raise ServiceError(
            f"{what}: the game master does not vote; to vote for a power, write BECOME "
            "<power> first"
        )
    return conversation.player()


class SetDraw(MailCommand):
    """``SET DRAW`` (a game with DIAS) or ``SET DRAW <powers>`` (without)."""

    name = "SET DRAW"
    help = Help(
        usage=("SET DRAW", "SET DRAW <powers>"),
        description=(
            "vote for a draw: alone when every survivor is in the draw (DIAS), else with "
            "the powers of the draw (SET DRAW AEF); the draw passes when every survivor "
            "has voted for it; the vote stands until SET NODRAW and is secret"
        ),
        audience=Audience.PLAYER,
    )

    def parse(self, line: Line) -> Command:
        return line.command(self.name, read_powers(line.args, self.name))

    def process(self, conversation: Conversation, command: Command) -> None:
        game, player = _voter(conversation, self.name)
        draw_votes.check_votes(game, self.name)
        said = draw_votes.cast_draw(
            conversation.session, conversation.judge, game, player.power, command.args,
            conversation.position(game), conversation.now,
        )  # fmt: skip
        conversation.reply.actions.append(said)


class _Withdrawal(MailCommand):
    """``SET NODRAW`` or ``SET NOCONCEDE``: the voter's standing vote of ``kind`` withdrawn."""

    kind: VoteKind

    def parse(self, line: Line) -> Command:
        if line.args:
            raise Malformed(f"{self.name} takes nothing after it: write '{self.name}'")
        return line.command(self.name)

    def process(self, conversation: Conversation, command: Command) -> None:
        game, player = _voter(conversation, self.name)
        said = draw_votes.withdraw(conversation.session, game, player.power, self.kind)
        conversation.reply.actions.append(said)


class SetNodraw(_Withdrawal):
    """``SET NODRAW`` (or ``SET NO DRAW``)."""

    name = "SET NODRAW"
    spellings = ("SET NO DRAW",)
    kind = VoteKind.DRAW
    help = Help(
        usage=("SET NODRAW",),
        description="withdraw your vote for a draw",
        audience=Audience.PLAYER,
    )


class SetConcede(MailCommand):
    """``SET CONCEDE <power>`` (or ``SET CONCEDE TO <power>``)."""

    name = "SET CONCEDE"
    help = Help(
        usage=("SET CONCEDE <power>",),
        description=(
            "concede the game to a power (where the game allows concessions): it wins when "
            "every other survivor has conceded to it; stands until SET NOCONCEDE, secret"
        ),
        audience=Audience.PLAYER,
    )

    def parse(self, line: Line) -> Command:
        args = line.args
        if args and keyword(args[0]) == "TO":
            # SET CONCEDE TO France, as PROPOSE CONCEDE TO F is read.
            args = args[1:]
        powers = read_powers(args, self.name)
        if len(powers) != 1:
            raise Malformed(
                f"{self.name} takes the one power you concede the game to: write "
                "'SET CONCEDE F' or 'SET CONCEDE France'"
            )
        return line.command(self.name, powers)

    def process(self, conversation: Conversation, command: Command) -> None:
        game, player = _voter(conversation, self.name)
        draw_votes.check_votes(game, self.name)
        said = draw_votes.cast_concession(
            conversation.session, conversation.judge, game, player.power, command.args[0],
            conversation.position(game), conversation.now,
        )  # fmt: skip
        conversation.reply.actions.append(said)


class SetNoconcede(_Withdrawal):
    """``SET NOCONCEDE`` (or ``SET NO CONCEDE``)."""

    name = "SET NOCONCEDE"
    spellings = ("SET NO CONCEDE",)
    kind = VoteKind.CONCEDE
    help = Help(
        usage=("SET NOCONCEDE",),
        description="withdraw your concession",
        audience=Audience.PLAYER,
    )
