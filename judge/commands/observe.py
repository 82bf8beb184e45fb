"""OBSERVE (the njudge's WATCH too): watch a game, as its observer.

Like the njudge's, the command is a sign-on: after it, LIST, SUMMARY, HISTORY and
RESIGN (which ends watching) apply to the game watched.  ``SIGNON O<game> <password>``
(:mod:`judge.commands.signon`) is the same sign-on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.commands.base import GAME_RE, Audience, Command, Help, Line, MailCommand, Malformed
from judge.services.errors import ServiceError
from judge.services.observers import PasswordRefused, already, observe, welcome
from judge.services.signons import SignOn

if TYPE_CHECKING:
    from judge.db.models import Game
    from judge.services.conversation import Conversation

__all__ = ["Observe", "Watch", "sign_on_observer"]


class Observe(MailCommand):
    """``OBSERVE <game> [<password>]``: args (game, [password]); the game lowercased,
    the password kept as written."""

    name = "OBSERVE"
    help = Help(
        usage=("OBSERVE <game> [<password>]", "SIGNON O<game> <password>"),
        description=(
            "watch a game: its start, results and news by mail, never a player's own mail "
            "(with the password, if its game master set one); RESIGN after it stops "
            "watching"
        ),
        audience=Audience.ANYONE,
    )

    def parse(self, line: Line) -> Command | None:
        args = line.args
        if not args:
            raise Malformed(
                f"{self.name} needs the game: write '{self.name} <game>', or "
                f"'{self.name} <game> <password>' for a game that asks observers for one"
            )
        game = args[0].lower()
        if len(args) > 2 or not GAME_RE.fullmatch(game):
            return None  # prose that starts with the word ("Watch out for Russia")
        return line.command(self.name, (game, *args[1:]))

    def process(self, conversation: Conversation, command: Command) -> None:
        game_name, *rest = command.args
        conversation.end_signon()
        if conversation.signon_failed:
            raise ServiceError(
                "not checked: a sign-on earlier in this message failed; send one sign-on "
                "with the right password"
            )
        game = conversation.game(game_name)
        if game is None:
            conversation.signon_refused()
            raise ServiceError(
                f"there is no game called {game_name!r} on this judge; send LIST for the games"
            )
        try:
            signed = sign_on_observer(conversation, game, rest[0] if rest else None)
        except ServiceError:
            conversation.signon_refused()
            raise
        conversation.signed_on(signed)


class Watch(Observe):
    """``WATCH``: the njudge's other name for OBSERVE."""

    name = "WATCH"
    help = Help(
        usage=("WATCH <game> [<password>]",),
        description="the same as OBSERVE",
        audience=Audience.ANYONE,
    )


def sign_on_observer(conversation: Conversation, game: Game, password: str | None) -> SignOn:
    """The sender watches ``game`` (from now on, or already): the sign-on as its
    observer, the answer added to the reply; raises ServiceError when refused (a wrong
    password marks the message's sign-on failed, as a seat's does)."""
    if password is not None:
        conversation.seat_named = True
    try:
        observer, new = observe(
            conversation.session, conversation.judge, conversation.work, game, password,
            sender=conversation.mail.sender, now=conversation.now,
        )  # fmt: skip
    except PasswordRefused:
        conversation.signon_failed = True
        raise
    # Paragraphs, not actions: a RESIGN later in the message ends the sign-on, and the
    # reply to a message signed on to nothing shows paragraphs only.
    if new:
        conversation.reply.paragraphs += welcome(conversation.session, conversation.judge, game)
    else:
        conversation.reply.paragraphs.append(already(game))
    return SignOn(game, None, observer=observer)
