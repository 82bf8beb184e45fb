"""The SET family a player sends: SET PASSWORD, SET ADDRESS, SET WAIT and SET NOWAIT,
SET TIMEZONE, SET ABSENCE and SET NOABSENCE.  (The game master's SET DEADLINE is in
:mod:`judge.commands.master`; the njudge's settings this judge lacks, in
:mod:`judge.commands.njudge`.)"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from judge.commands.acting import master_part
from judge.commands.base import (
    Audience,
    Command,
    Family,
    Help,
    Line,
    MailCommand,
    Malformed,
    is_address,
)
from judge.presenters import format_deadline
from judge.services import seats
from judge.services.deadlines import parse_deadline
from judge.services.errors import ServiceError
from judge.services.game_settings import game_zone, player_zone
from judge.services.passwords import MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, hash_password
from judge.services.schedule import MAX_ABSENCE_DAYS, MAX_ABSENCES, declare_absence

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = [
    "FAMILY",
    "MAX_ABSENCES",
    "MAX_ABSENCE_DAYS",
    "MAX_ADDRESS_LENGTH",
    "SetAbsence",
    "SetAddress",
    "SetNoabsence",
    "SetNowait",
    "SetPassword",
    "SetTimezone",
    "SetWait",
    "check_new_password",
]

#: The SET commands: what a line ``SET`` alone, or ``SET`` with a setting this judge
#: does not know, is answered.
FAMILY = Family(
    word="SET",
    missing="SET needs a setting: this judge knows {known}",
    unknown="SET {word} is not a setting this judge knows; it knows {known}",
    not_yet="; it knows {known}",
)

#: The longest address SMTP carries (RFC 5321: a 256-octet path less its brackets).
MAX_ADDRESS_LENGTH = 254


class SetPassword(MailCommand):
    """``SET PASSWORD <new>``: one word, kept exactly as written; the game master's
    ``SET PASSWORD <power> <new>`` resets a player's password, or sets an open seat's
    takeover password (:func:`judge.services.seats.set_seat_password`).  Told apart by
    who is signed on."""

    name = "SET PASSWORD"
    help = Help(
        usage=("SET PASSWORD <new>",),
        master_usage=("SET PASSWORD <power> <new>",),
        description=(
            "change your password (one word of `MIN_PASSWORD_LENGTH` to "
            f"`MAX_PASSWORD_LENGTH`, {MIN_PASSWORD_LENGTH} to {MAX_PASSWORD_LENGTH}, "
            "characters); the game master's form resets a player's password, or sets the "
            "takeover password of an open seat"
        ),
        audience=Audience.PLAYER,
    )

    def parse(self, line: Line) -> Command:
        rest = line.args
        if len(rest) in (1, 2):
            # Two words: the game master's form, or a player's password with a space
            # (refused once it is known who is signed on).
            return line.command(self.name, rest)
        if not rest:
            raise Malformed(
                "SET PASSWORD needs the new password: write 'SET PASSWORD <new password>'"
            )
        raise Malformed(
            "a password is one word with no spaces: write 'SET PASSWORD <new password>'"
        )

    def process(self, conversation: Conversation, command: Command) -> None:
        signed = conversation.signed
        if len(command.args) == 2 and signed is not None and signed.is_master:
            with master_part(conversation, command):
                game = conversation.master()
                power, new = command.args
                check_new_password(new)
                seats.set_seat_password(conversation, game, power, new)
            return
        if signed is not None and signed.by_master and signed.player is not None:
            # Acting for a power (BECOME): the player's own form would change a password
            # nobody tells the player.
            power = signed.player.power
            raise ServiceError(
                f"SET PASSWORD: acting for {power}, write 'SET PASSWORD {power} <new>' to "
                f"reset {power}'s password (its player is told the new one)"
            )
        _game, player = conversation.player()
        if len(command.args) == 2:
            raise ServiceError(
                "a password is one word with no spaces: write 'SET PASSWORD <new password>' "
                "('SET PASSWORD <power> <new>' is the game master's)"
            )
        new = command.args[0] if command.args else ""
        check_new_password(new)
        player.password_hash = hash_password(new)
        conversation.reply.actions.append("Password changed.")


def check_new_password(new: str) -> None:
    """Raise ServiceError unless ``new`` may be a password (SET PASSWORD's limits)."""
    if len(new) < MIN_PASSWORD_LENGTH:
        raise ServiceError(
            f"a password needs at least {MIN_PASSWORD_LENGTH} characters (this one has "
            f"{len(new)}): choose a longer one, e.g. four words joined by dashes"
        )
    if len(new) > MAX_PASSWORD_LENGTH:
        raise ServiceError(
            f"a password has at most {MAX_PASSWORD_LENGTH} characters (this one has {len(new)})"
        )


def _address_word(word: str) -> str:
    """An address as written (``<me@x.org>``, ``mailto:me@x.org``), bare and lower case."""
    address = word.strip("<>").lower()
    if address.startswith("mailto:"):
        address = address[len("mailto:") :]
    return address


class SetAddress(MailCommand):
    """``SET ADDRESS [<address>]``: without one, the address the message came from; the
    game master's ``SET ADDRESS <power> <address>`` moves a player's seat to a new
    address (:func:`judge.services.seats.set_seat_address`)."""

    name = "SET ADDRESS"
    # An address has its own limit (:data:`MAX_ADDRESS_LENGTH`), said where it is used.
    long_words = True
    help = Help(
        usage=("SET ADDRESS [<address>]",),
        master_usage=("SET ADDRESS <power> <address>",),
        description=(
            "change your registered address (default: the one you write from; at most "
            f"{MAX_ADDRESS_LENGTH} characters, never the judge's own); the game master's "
            "form changes a player's, for a player who lost access to theirs"
        ),
        audience=Audience.PLAYER,
    )

    def parse(self, line: Line) -> Command:
        rest = line.args
        if not rest:
            return line.command(self.name)
        address = _address_word(rest[-1])
        if len(rest) == 1 and is_address(address):
            return line.command(self.name, (address,))
        if len(rest) == 2 and is_address(address) and "@" not in rest[0]:
            return line.command(self.name, (rest[0], address))
        raise Malformed(
            "SET ADDRESS takes one email address, as in 'SET ADDRESS me@example.org', or "
            "nothing to use the address this message came from (the game master: "
            "'SET ADDRESS <power> <address>')"
        )

    def process(self, conversation: Conversation, command: Command) -> None:
        if len(command.args) == 2:
            with master_part(conversation, command):
                game = conversation.master()
                address = _checked_address(conversation, command.args[1])
                seats.set_seat_address(conversation, game, command.args[0], address)
            return
        signed = conversation.signed
        if signed is not None and signed.by_master and signed.player is not None:
            # Acting for a power (BECOME): the player's own form would move the seat to
            # the game master's address, unchecked and untold.
            power = signed.player.power
            raise ServiceError(
                f"SET ADDRESS: acting for {power}, write 'SET ADDRESS {power} <address>' to "
                f"move {power}'s seat (its player is told there)"
            )
        _game, player = conversation.player()
        sender = conversation.mail.sender
        address = _checked_address(conversation, command.args[0] if command.args else sender)
        player.address = address
        conversation.reply.actions.append(f"Your address is now {address}.")


def _checked_address(conversation: Conversation, text: str) -> str:
    """``text`` as a player's address, or ServiceError saying what is wrong with it."""
    address = text.strip().lower()
    if len(address) > MAX_ADDRESS_LENGTH:
        raise ServiceError(
            f"an email address has at most {MAX_ADDRESS_LENGTH} characters (this one has "
            f"{len(address)})"
        )
    if not re.fullmatch(r"[^@\s<>,;]+@[^@\s<>,;]+", address):
        raise ServiceError(f"{address!r} is not an email address")
    if address == conversation.judge.settings.address.strip().lower():
        # Mail to the player would come back to the judge: a loop, and a lost seat.
        raise ServiceError(f"{address} is this judge's own address: give your own")
    return address


class _Switch(MailCommand):
    """A setting that takes nothing after it."""

    def parse(self, line: Line) -> Command:
        if line.args:
            raise Malformed(f"{self.name} takes nothing after it: write '{self.name}'")
        return line.command(self.name)


class SetWait(_Switch):
    """``SET WAIT``."""

    name = "SET WAIT"
    help = Help(
        usage=("SET WAIT",),
        description=(
            "hold this phase's processing until the deadline even if everyone is in "
            "(cleared when the phase is processed)"
        ),
        audience=Audience.PLAYER,
    )

    def process(self, conversation: Conversation, command: Command) -> None:
        _game, player = conversation.player()
        player.wait = True
        conversation.reply.actions.append(
            "WAIT set for this phase: it will not be processed before the deadline."
        )


class SetNowait(_Switch):
    """``SET NOWAIT`` (or ``SET NO WAIT``)."""

    name = "SET NOWAIT"
    spellings = ("SET NO WAIT",)
    help = Help(
        usage=("SET NOWAIT",),
        description="let the phase be processed early again once everyone is in (the default)",
        audience=Audience.PLAYER,
    )

    def process(self, conversation: Conversation, command: Command) -> None:
        _game, player = conversation.player()
        player.wait = False
        conversation.reply.actions.append("WAIT cleared: the phase may be processed early.")


class SetTimezone(MailCommand):
    """``SET TIMEZONE <zone>``."""

    name = "SET TIMEZONE"
    help = Help(
        usage=("SET TIMEZONE <zone>",),
        description="show deadlines also in your own time zone (`SET TIMEZONE America/New_York`)",
        audience=Audience.PLAYER,
    )

    def parse(self, line: Line) -> Command:
        if len(line.args) != 1:
            raise Malformed(
                "SET TIMEZONE takes one time zone name, as in 'SET TIMEZONE America/New_York'"
            )
        return line.command(self.name, line.args)

    def process(self, conversation: Conversation, command: Command) -> None:
        _game, player = conversation.player()
        zone = command.args[0]
        try:
            ZoneInfo(zone)
        except (ZoneInfoNotFoundError, ValueError):
            raise ServiceError(
                f"{zone!r} is not a time zone; use a name such as Europe/London, "
                "America/New_York or Asia/Tokyo"
            ) from None
        player.timezone = zone
        conversation.reply.actions.append(f"Your time zone is now {zone}.")


_WORD = re.compile(r"\S+")


def _with_time(text: str, default: str) -> str:
    """A bare date gets a time of day (the start or the end of that day)."""
    return text if re.search(r"\d:\d", text) else f"{text.strip()} {default}"


class SetAbsence(MailCommand):
    """``SET ABSENCE <from> TO <to>``: two dates (and times), in the player's zone."""

    name = "SET ABSENCE"
    help = Help(
        usage=("SET ABSENCE <from> TO <to>",),
        description=(
            "tell the judge you are away (`SET ABSENCE 2026-12-20 TO 2026-12-27`): a "
            "deadline that falls in it moves to its end, and everyone in the game is told; "
            f"an absence lasts at most {MAX_ABSENCE_DAYS} days, {MAX_ABSENCES} per game"
        ),
        audience=Audience.PLAYER,
    )

    def parse(self, line: Line) -> Command:
        parts = line.text.strip().split(None, 2)
        text = parts[2].strip() if len(parts) == 3 else ""
        # The dates either side of the first word TO between two others, by one pass over
        # the words (a split at r"\s+to\s+" retried every blank of a long run).
        words = list(_WORD.finditer(text))
        middle = next((w for w in words[1:-1] if w.group().lower() == "to"), None)
        if middle is None:
            raise Malformed("SET ABSENCE needs two dates: 'SET ABSENCE 2026-12-20 TO 2026-12-27'")
        start, end = text[: middle.start()].strip(), text[middle.end() :].strip()
        return line.command(self.name, (start, end))

    def process(self, conversation: Conversation, command: Command) -> None:
        game, player = conversation.player()
        judge = conversation.judge
        zone = player_zone(game, player, judge)
        try:
            start = parse_deadline(_with_time(command.args[0], "00:00"), zone)
            end = parse_deadline(_with_time(command.args[1], "23:59"), zone)
        except ValueError as err:
            raise ServiceError(str(err)) from None
        moved = declare_absence(
            conversation.session, judge, game, player, start, end, conversation.now
        )
        conversation.reply.actions.append(
            f"Absence noted from {format_deadline(start, zone)} to {format_deadline(end, zone)}."
            + (
                f" The deadline moves to {format_deadline(game.deadline, game_zone(game, judge))}"
                " and everyone in the game is told."
                if moved and game.deadline
                else ""
            )
        )


class SetNoabsence(MailCommand):
    """``SET NOABSENCE`` (words after it are not looked at)."""

    name = "SET NOABSENCE"
    help = Help(
        usage=("SET NOABSENCE",),
        description="cancel your absence",
        audience=Audience.PLAYER,
    )

    def parse(self, line: Line) -> Command:
        return line.command(self.name)

    def process(self, conversation: Conversation, command: Command) -> None:
        _game, player = conversation.player()
        player.absence_from = player.absence_to = None
        conversation.reply.actions.append("Absence cancelled.")
