"""BECOME: the game master acts for a power for the rest of the message (house rule
3.11: a late order the master chooses to accept)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.commands.base import Audience, Command, Help, Line, MailCommand, Malformed
from judge.db.models import GameStatus, PlayerStatus
from judge.services.endings import over_refusal
from judge.services.errors import ServiceError
from judge.services.signons import SignOn

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["Become"]


class Become(MailCommand):
    """``BECOME <power>``: the lines that follow are that power's orders and commands, as
    if it had signed on; the power gets a copy that says the game master entered them.
    Another ``BECOME`` switches power, a ``SIGNON`` ends it."""

    name = "BECOME"
    help = Help(
        usage=("BECOME <power>",),
        description=(
            "act for a power (its initial or name) for the rest of the message: the lines "
            "that follow are its orders, taken even after the deadline until the phase is "
            "processed; the power gets a copy"
        ),
        audience=Audience.MASTER,
    )

    def parse(self, line: Line) -> Command | None:
        if not line.args:
            raise Malformed(
                "BECOME needs the power to act for, as in 'BECOME England' or 'BECOME E'"
            )
        if len(line.args) > 1:
            # "Become friends with France": prose, as before this judge had BECOME.
            return None
        return line.command(self.name, line.args)

    def process(self, conversation: Conversation, command: Command) -> None:
        game = conversation.master()
        (who,) = command.args
        board = conversation.map
        power = board.find_power(who)
        if power is None:
            initials = " ".join(board.power_letter[p] for p in board.powers)
            raise ServiceError(
                f"{who!r} is not a power: BECOME takes a power's initial ({initials}) or name"
            )
        if game.status == GameStatus.FORMING:
            raise ServiceError(
                f"game {game.name} has not started yet: there are no orders to enter"
            )
        if game.status == GameStatus.FINISHED:
            raise ServiceError(over_refusal(game))
        player = conversation.seat(game, power)
        if player is None:
            raise ServiceError(f"nobody plays {power} in {game.name}: there is no seat to act for")
        if player.status == PlayerStatus.RESIGNED:
            raise ServiceError(
                f"nobody plays {power} in {game.name}: its player resigned, and its seat waits "
                "for a replacement"
            )
        sender = conversation.mail.sender
        # An ejected player no longer plays the power: no copy of its orders goes to them.
        ejected = player.ejected_at is not None
        copy_to = player.address if player.address != sender and not ejected else None
        # Said between the parts: it belongs to no power's copy.
        conversation.end_signon()
        told = f"; {player.address} gets a copy" if copy_to else ""
        conversation.reply.actions.append(
            f"Acting for {power} in {game.name}: the lines that follow are {power}'s{told}."
        )
        conversation.signed_on(SignOn(game, player, copy_to, by_master=True))
