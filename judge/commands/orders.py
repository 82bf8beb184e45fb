"""The ORDERS line: every line that no command's name starts is read as orders."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.commands.base import Audience, Command, Help, Line, MailCommand
from judge.db.models import GameStatus
from judge.engine.errors import OrderError
from judge.engine.notation import parse_orders
from judge.services.disorder import back_from_disorder
from judge.services.endings import over_refusal
from judge.services.errors import ServiceError
from judge.services.order_intake import looks_like_order, take_order

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["Orders"]


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
        game, player = conversation.player()
        if game.status == GameStatus.FORMING:
            raise ServiceError(f"game {game.name} has not started yet")
        if game.status == GameStatus.FINISHED:
            raise ServiceError(over_refusal(game))
        position = conversation.position(game)
        kind = position.phase.kind
        pieces = parse_orders(line, board, kind)
        if not any(p.order is not None or looks_like_order(p, board) for p in pieces):
            # Nothing in it is an order or meant as one ("Ankara, Turkey" under a name):
            # the line is listed as written, not cut at its commas.
            conversation.reply.ignored.append(line)
            return
        for piece in pieces:
            if piece.order is None:
                assert piece.error is not None
                if looks_like_order(piece, board):
                    conversation.reject(piece.text, piece.error.message)
                else:
                    conversation.reply.ignored.append(piece.text)
                continue
            if piece.power is not None and piece.power != player.power:
                conversation.reject(piece.text, f"you play {player.power}, not {piece.power}")
                continue
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
            if not signed.by_master and back_from_disorder(
                conversation.session, conversation.judge, game, player, conversation.now
            ):
                conversation.reply.actions.append(f"{player.power} is out of civil disorder.")
