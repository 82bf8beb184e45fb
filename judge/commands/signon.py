"""SIGNON (as a power or as the game master) and SIGNOFF."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.commands.base import (
    GAME_RE,
    POWER_NAME_RE,
    Audience,
    Command,
    Help,
    Line,
    MailCommand,
    Malformed,
)
from judge.commands.observe import sign_on_observer
from judge.services import seats
from judge.services.errors import ServiceError
from judge.services.signons import SignOn, check_password

if TYPE_CHECKING:
    from judge.db.models import Game, Player
    from judge.services.conversation import Conversation

__all__ = ["Signoff", "Signon"]

_EXAMPLE = "'SIGNON Fwinter01 secret' (F for France) or 'SIGNON france@winter01 secret'"


class Signon(MailCommand):
    """``SIGNON Fgame pw``, ``SIGNON F game pw`` or ``SIGNON power@game pw``; ``M`` for
    the game master.  Its args are (initial or power name, game, password); the password
    is kept exactly as written (it is case-sensitive), the game lowercased."""

    name = "SIGNON"
    spellings = ("SIGN ON",)
    help = Help(
        usage=("SIGNON <power initial><game> <password>", "SIGNON <power>@<game> <password>"),
        master_usage=("SIGNON M<game> <password>",),
        description=(
            "sign on to a game as a power, or as its game master; with an open seat's "
            "takeover password, take the seat over (after a wrong password, no other "
            "sign-on in the same message is checked, and nothing after it is read as orders)"
        ),
        audience=Audience.ANYONE,
        guide=(
            "  SIGNON <power initial><game> <password>   e.g. SIGNON Fwinter01 secret\n"
            "  (or SIGNON france@winter01 secret), then your orders, one or more per line:"
        ),
    )

    def parse(self, line: Line) -> Command:
        rest = line.args
        if not rest:
            raise Malformed(f"SIGNON needs your power, the game and its password, as in {_EXAMPLE}")
        if len(rest) == 3 and len(rest[0]) == 1:
            # "SIGNON F winter01 secret": the initial and the game written apart.
            who, password = rest[0] + rest[1], rest[2]
            separated = True
        elif len(rest) == 2:
            who, password = rest
            separated = False
        elif len(rest) == 1:
            raise Malformed(
                f"SIGNON {rest[0]} is missing the password: write 'SIGNON {rest[0]} <password>'"
            )
        else:
            raise Malformed(
                f"SIGNON takes three things, the power, the game and the password (one "
                f"word), as in {_EXAMPLE}; {' '.join(rest[2:])!r} is more than that"
            )
        if "@" in who and not separated:
            power, _, game = who.partition("@")
            power = power.lower()
            if not POWER_NAME_RE.fullmatch(power):
                raise Malformed(
                    f"{power!r} is not a power name: write the power before the '@', as in "
                    f"'SIGNON france@winter01 secret'"
                )
        else:
            power, game = who[:1].upper(), who[1:]
            if not (power.isascii() and (power.isalpha() or power == "?")):
                raise Malformed(
                    f"{who!r} should start with the initial of your power (M for the game "
                    f"master), as in {_EXAMPLE}"
                )
        game = game.lower()
        if not game:
            raise Malformed(
                f"SIGNON {who} names no game: write the game right after the power "
                f"initial, as in {_EXAMPLE}"
            )
        if not GAME_RE.fullmatch(game):
            raise Malformed(
                f"{game!r} is not a game name: game names have letters, digits, '-' and "
                f"'_' only, as in {_EXAMPLE}"
            )
        return line.command(self.name, (power, game, password))

    def process(self, conversation: Conversation, command: Command) -> None:
        who, game_name, password = command.args
        conversation.end_signon()
        if conversation.signon_failed:
            raise ServiceError(
                "not checked: a sign-on earlier in this message failed; send one SIGNON "
                "with the right password"
            )
        try:
            signed = _sign_on(conversation, who, game_name, password)
        except ServiceError:
            conversation.signon_refused()
            raise
        conversation.signed_on(signed)


def _sign_on(conversation: Conversation, who: str, game_name: str, password: str) -> SignOn:
    """The sign-on ``who`` (an initial, a power's name, or ``M``) asks for, its password
    checked; raises ServiceError with the reason it is refused."""
    game = conversation.game(game_name)
    if game is None:
        raise ServiceError(
            f"there is no game called {game_name!r} on this judge; send LIST for the games"
        )
    if who.upper() in ("O", "OBSERVER"):
        # No power's initial is O: the njudge's sign-on as an observer, as OBSERVE.
        return sign_on_observer(conversation, game, password)
    if who.upper() == "M":
        _check(conversation, game, None, password)
        conversation.reply.actions.append(f"Signed on as game master of {game.name}.")
        return SignOn(game, None)
    power = conversation.map.find_power(who)
    if power is None:
        raise ServiceError(
            f"{who!r} is not a power; use the power's initial (A E F G I R T) or name"
        )
    player = conversation.seat(game, power)
    if player is None:
        raise ServiceError(f"nobody plays {power} in {game.name}")
    # The player's own password, or an open seat's takeover password (house rules 4.6).
    return seats.sign_on_power(conversation, game, player, password)


def _check(conversation: Conversation, game: Game, player: Player | None, password: str) -> None:
    """The game master's password check, noting a seat named and a failed sign-on in the
    conversation (a power's: :func:`judge.services.seats.sign_on_power`)."""
    conversation.seat_named = True
    try:
        check_password(
            conversation.session, conversation.judge, conversation.work, game, player,
            password, sender=conversation.mail.sender, now=conversation.now,
        )  # fmt: skip
    except ServiceError:
        conversation.signon_failed = True
        raise


class Signoff(MailCommand):
    """``SIGNOFF``: nothing after it is read."""

    name = "SIGNOFF"
    spellings = ("SIGN OFF",)
    ends_message = True
    help = Help(
        usage=("SIGNOFF",),
        description="stop reading the message",
        audience=Audience.ANYONE,
        guide="  SIGNOFF ends the message (nothing after it is read).",
    )

    def parse(self, line: Line) -> Command | None:
        if line.spaced and line.args:
            # "SIGN OFF" counts alone on its line only: "Sign off the deal" is prose.
            return None
        return line.command(self.name)

    def process(self, conversation: Conversation, command: Command) -> None:
        """Nothing to do: the command parser stops reading at SIGNOFF."""
