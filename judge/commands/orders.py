"""The ORDERS line: every line that no command's name starts is read as orders."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from judge.commands.base import Audience, Command, Help, Line, MailCommand
from judge.db.models import Game, GameStatus, Player
from judge.engine.errors import OrderError
from judge.engine.notation import ParsedOrder, parse_orders
from judge.services import future_orders
from judge.services.disorder import back_from_disorder
from judge.services.endings import over_refusal
from judge.services.errors import ServiceError
from judge.services.order_intake import looks_like_order, take_order
from judge.services.orders_ahead import kind_refusal
from judge.services.phase_sections import Section, auto_adjustment

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["Orders", "playing", "send_ahead", "take_line"]


class Orders(MailCommand):
    """A line of orders, one or more (by commas or semicolons); its one arg is the line,
    stripped.  What is not an order in it, nor meant as one, is listed as not read."""

    name = "ORDERS"
    catch_all = True
    # The order parser refuses a long word itself, naming it.
    long_words = True
    help = Help(
        usage=("<order>[, <order> ...]",),
        description=(
            "orders for your units, one or more a line (the last order for a unit counts)"
        ),
        audience=Audience.PLAYER,
        guide=(
            "    A Par-Bur        F Bre-MAO        A Mar S A Par-Bur     F NTH C A Lon-Nwy\n"
            "    A Par H (hold: a unit or a place alone is not an order)\n"
            "    F Tri-Alb / F Tri D (retreats)    Build A Par / Remove F Tri / Waive\n"
            "  Orders can be sent again until the deadline; the last order for a unit counts."
        ),
    )

    def parse(self, line: Line) -> Command:
        return line.command(self.name, (line.text.strip(),))

    def process(self, conversation: Conversation, command: Command) -> None:
        line = command.args[0] if command.args else command.line
        board = conversation.map
        if conversation.signed is None:
            pieces = parse_orders(line, board)
            if any(p.order is not None or looks_like_order(p, board) for p in pieces):
                conversation.reject(
                    line, "sign on before sending orders: SIGNON <power initial><game> <password>"
                )
            else:
                conversation.reply.ignored.append(line)
            return
        game, player = playing(conversation)
        section = conversation.section
        current = conversation.position(game).phase
        if section is None or section.now:
            section = auto_adjustment(game, current, line)
        if section is not None:
            send_ahead(conversation, game, player, section, line)
            return
        take_line(conversation, game, player, line)


def playing(conversation: Conversation) -> tuple[Game, Player]:
    """The game and player signed on as, for orders: raises ServiceError when no player
    is signed on, or the game has not started or is over."""
    game, player = conversation.player()
    if game.status == GameStatus.FORMING:
        raise ServiceError(f"game {game.name} has not started yet")
    if game.status == GameStatus.FINISHED:
        raise ServiceError(over_refusal(game))
    return game, player


def _meant(conversation: Conversation, line: str, pieces: list[ParsedOrder]) -> bool:
    """Whether anything in ``line`` is an order or meant as one; if not, the line is
    listed as not read, as written (not cut at its commas)."""
    board = conversation.map
    if any(p.order is not None or looks_like_order(p, board) for p in pieces):
        return True
    conversation.reply.ignored.append(line)
    return False


def send_ahead(
    conversation: Conversation, game: Game, player: Player, section: Section, line: str
) -> None:
    """Keep the orders of ``line`` for ``section``'s phase, one row a piece, checked for
    syntax with that phase's kind only (legality is checked when the phase begins);
    refuse them all when the section was refused."""
    board = conversation.map
    phase = section.phase
    pieces = parse_orders(line, board, phase.kind if phase is not None else None)
    if not _meant(conversation, line, pieces):
        return
    if phase is None:
        conversation.reject(line, section.refusal)
        return
    # Counted once a line, not once a piece: the line may hold a hundred of them.
    kept = future_orders.kept_lines(conversation.session, game, player)
    for piece in _orders_of(conversation, player, pieces):
        wrong = kind_refusal(piece, phase) or future_orders.room_refusal(game, kept, 1)
        if wrong is not None:
            conversation.reject(piece.text, wrong)
            continue
        kept += 1
        future_orders.add(
            conversation.session, game, player, phase.code, [piece.text],
            conversation.inbound_id, conversation.now, cache=conversation.work.ahead,
        )  # fmt: skip
        conversation.activity.orders_ahead += 1


def take_line(conversation: Conversation, game: Game, player: Player, line: str) -> None:
    """Take the orders of ``line`` for the current phase: each piece checked against the
    position and kept, or refused with the reason, one by one."""
    board = conversation.map
    position = conversation.position(game)
    kind = position.phase.kind
    pieces = parse_orders(line, board, kind)
    if not _meant(conversation, line, pieces):
        # Nothing in it is an order or meant as one ("Ankara, Turkey" under a name).
        return
    for piece in _orders_of(conversation, player, pieces):
        assert piece.order is not None
        try:
            notes = take_order(
                conversation.session, conversation.work, game, player, position,
                conversation.rules(game), board, piece.text, piece.order,
                inbound_id=conversation.inbound_id, now=conversation.now,
            )  # fmt: skip
        except OrderError as err:
            conversation.reject(piece.text, err.message)
            continue
        conversation.activity.orders_taken += 1
        conversation.reply.actions += notes
        # Orders from the player's own sign-on (not the master's BECOME) end civil
        # disorder, once, with the first order kept.
        signed = conversation.signed
        if (
            signed is not None
            and not signed.by_master
            and back_from_disorder(
                conversation.session, conversation.judge, game, player, conversation.now
            )
        ):
            conversation.reply.actions.append(f"{player.power} is out of civil disorder.")


def _orders_of(
    conversation: Conversation, player: Player, pieces: list[ParsedOrder]
) -> Iterator[ParsedOrder]:
    """The pieces that are orders of ``player``'s; the others refused with the reason,
    or listed as not read when they were not meant as orders."""
    board = conversation.map
    for piece in pieces:
        if piece.order is None:
            assert piece.error is not None
            if looks_like_order(piece, board):
                conversation.reject(piece.text, piece.error.message)
            else:
                conversation.reply.ignored.append(piece.text)
        elif piece.power is not None and piece.power != player.power:
            conversation.reject(piece.text, f"you play {player.power}, not {piece.power}")
        else:
            yield piece
