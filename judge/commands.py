"""The mail command language, compatible with the njudge and DPjudge habits.

Players write one command per line in the body of a message, in any case::

    SIGNON Fwinter01 secret
    A Par-Bur, A Mar S A Par-Bur
    SET WAIT
    SIGNOFF

:func:`parse_commands` turns lines into :class:`Command` values.  It only reads the
command words: a line that does not start with one is an ``ORDERS`` line, which the
order service reads with the order language and reports as ignored if it is not an
order.  A line that starts with a command word but is malformed (``SIGNON`` without a
password, ``SET COLOUR blue``) is an ``UNKNOWN`` command carrying an error that says
what is wrong and what would be right.  Nothing after ``SIGNOFF`` is read.

Passwords are kept exactly as written (they are case-sensitive); game names are
lowercased.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["COMMAND_NAMES", "Command", "parse_commands"]

COMMAND_NAMES = (
    "SIGNON",
    "SIGNOFF",
    "LIST",
    "HELP",
    "HISTORY",
    "SUMMARY",
    "SET PASSWORD",
    "SET ADDRESS",
    "SET WAIT",
    "SET NOWAIT",
    "RESIGN",
    "CLEAR",
    "PROCESS",
    "PAUSE",
    "RESUME",
    "SET DEADLINE",
    "SET TIMEZONE",
    "SET ABSENCE",
    "SET NOABSENCE",
    "ORDERS",
    "UNKNOWN",
)
"""Every value :attr:`Command.name` can take."""


@dataclass(frozen=True)
class Command:
    """One line of a message, read as a command.

    ``name`` is one of :data:`COMMAND_NAMES`; ``args`` its arguments (for ``ORDERS`` the
    stripped line, for ``UNKNOWN`` the words of the line); ``line`` the line as written;
    ``number`` its 1-based position in the lines given; ``error`` set only for
    ``UNKNOWN``.
    """

    name: str
    args: tuple[str, ...]
    line: str
    number: int
    error: str | None = None


_GAME_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
_POWER_NAME_RE = re.compile(r"[a-z][a-z0-9_-]{0,39}")
# Loose on purpose (the mail server has the last word), but never anything that could
# break an SMTP envelope or a header.
_ADDRESS_RE = re.compile(
    r"[^@\s<>,;\x00-\x1f\x7f]+@[^@\s<>,;\x00-\x1f\x7f]+\.[^@\s<>,;\x00-\x1f\x7f]+"
)
_SIGNON_EXAMPLE = "'SIGNON Fwinter01 secret' (F for France) or 'SIGNON france@winter01 secret'"
_KNOWN_SETTINGS = (
    "SET PASSWORD, SET ADDRESS, SET WAIT, SET NOWAIT, SET TIMEZONE, SET ABSENCE, "
    "SET NOABSENCE and SET DEADLINE"
)
# Judge commands players may know from other judges that this one does not take (yet):
# answering "not supported" is kinder than treating them as orders.
_UNSUPPORTED = frozenset(
    {"PRESS", "BROADCAST", "ENDPRESS", "BECOME", "EJECT", "ROLLBACK", "CREATE", "OBSERVE"}
)
_UNSUPPORTED_SETTINGS = frozenset({"DRAW", "NODRAW", "PREFERENCE", "PRESS", "NOPRESS", "GRACE"})
_NO_ARGS = frozenset({"RESIGN", "CLEAR", "PROCESS", "PAUSE", "RESUME"})
_GAME_ARG = frozenset({"LIST", "HISTORY", "SUMMARY"})


def _keyword(word: str) -> str:
    """A first word as a command keyword: upper case, trailing ``.`` ``:`` ``!`` removed.

    Only ASCII words count, so that no exotic letter case-maps onto a command word.
    """
    word = word.rstrip(".:!")
    return word.upper() if word.isascii() else ""


class _Malformed(Exception):
    """A line that starts with a command word but is not a valid command; the message
    says what is wrong and what would be right."""


def _signon(line: str, number: int, words: list[str]) -> Command:
    """``SIGNON Fgame pw``, ``SIGNON F game pw`` or ``SIGNON power@game pw``; raises
    :class:`_Malformed` otherwise."""
    rest = words[1:]
    if not rest:
        raise _Malformed(
            f"SIGNON needs your power, the game and its password, as in {_SIGNON_EXAMPLE}"
        )
    if len(rest) == 3 and len(rest[0]) == 1:
        # "SIGNON F winter01 secret": the initial and the game written apart.
        who, password = rest[0] + rest[1], rest[2]
        separated = True
    elif len(rest) == 2:
        who, password = rest
        separated = False
    elif len(rest) == 1:
        raise _Malformed(
            f"SIGNON {rest[0]} is missing the password: write 'SIGNON {rest[0]} <password>'"
        )
    else:
        raise _Malformed(
            f"SIGNON takes three things, the power, the game and the password (one word), "
            f"as in {_SIGNON_EXAMPLE}; {' '.join(rest[2:])!r} is more than that"
        )
    if "@" in who and not separated:
        power, _, game = who.partition("@")
        power = power.lower()
        if not _POWER_NAME_RE.fullmatch(power):
            raise _Malformed(
                f"{power!r} is not a power name: write the power before the '@', as in "
                f"'SIGNON france@winter01 secret'"
            )
    else:
        power, game = who[:1].upper(), who[1:]
        if not (power.isascii() and (power.isalpha() or power == "?")):
            raise _Malformed(
                f"{who!r} should start with the initial of your power (M for the game "
                f"master), as in {_SIGNON_EXAMPLE}"
            )
    game = game.lower()
    if not game:
        raise _Malformed(
            f"SIGNON {who} names no game: write the game right after the power initial, "
            f"as in {_SIGNON_EXAMPLE}"
        )
    if not _GAME_RE.fullmatch(game):
        raise _Malformed(
            f"{game!r} is not a game name: game names have letters, digits, '-' and '_' "
            f"only, as in {_SIGNON_EXAMPLE}"
        )
    return Command("SIGNON", (power, game, password), line, number)


def _set(line: str, number: int, words: list[str]) -> Command:
    """The ``SET`` commands; raises :class:`_Malformed` for a malformed one."""
    if len(words) < 2:
        raise _Malformed(f"SET needs a setting: this judge knows {_KNOWN_SETTINGS}")
    setting = _keyword(words[1])
    rest = words[2:]
    if setting == "NO" and rest and _keyword(rest[0]) == "WAIT":
        setting, rest = "NOWAIT", rest[1:]  # "SET NO WAIT"
    if setting == "PASSWORD":
        if len(rest) == 1:
            return Command("SET PASSWORD", (rest[0],), line, number)
        if not rest:
            error = "SET PASSWORD needs the new password: write 'SET PASSWORD <new password>'"
        else:
            error = "a password is one word with no spaces: write 'SET PASSWORD <new password>'"
        raise _Malformed(error)
    if setting == "ADDRESS":
        if not rest:
            return Command("SET ADDRESS", (), line, number)
        address = rest[0].strip("<>").lower()
        if address.startswith("mailto:"):
            address = address[len("mailto:") :]
        if len(rest) == 1 and _ADDRESS_RE.fullmatch(address):
            return Command("SET ADDRESS", (address,), line, number)
        raise _Malformed(
            "SET ADDRESS takes one email address, as in 'SET ADDRESS me@example.org', or "
            "nothing to use the address this message came from"
        )
    if setting in ("WAIT", "NOWAIT"):
        if rest:
            raise _Malformed(f"SET {setting} takes nothing after it: write 'SET {setting}'")
        return Command(f"SET {setting}", (), line, number)
    if setting == "DEADLINE":
        parts = line.strip().split(None, 2)
        date_text = parts[2].strip() if len(parts) == 3 else ""
        if not date_text:
            raise _Malformed(
                "SET DEADLINE needs the new date and time, as in 'SET DEADLINE 2024-03-05 20:00'"
            )
        return Command("SET DEADLINE", (date_text,), line, number)
    if setting == "TIMEZONE":
        if len(rest) != 1:
            raise _Malformed(
                "SET TIMEZONE takes one time zone name, as in 'SET TIMEZONE America/New_York'"
            )
        return Command("SET TIMEZONE", (rest[0],), line, number)
    if setting == "ABSENCE":
        parts = line.strip().split(None, 2)
        text = parts[2].strip() if len(parts) == 3 else ""
        pieces = re.split(r"\s+to\s+", text, maxsplit=1, flags=re.IGNORECASE)
        if len(pieces) != 2 or not all(p.strip() for p in pieces):
            raise _Malformed("SET ABSENCE needs two dates: 'SET ABSENCE 2026-12-20 TO 2026-12-27'")
        return Command("SET ABSENCE", (pieces[0].strip(), pieces[1].strip()), line, number)
    if setting == "NOABSENCE":
        return Command("SET NOABSENCE", (), line, number)
    if setting in _UNSUPPORTED_SETTINGS:
        raise _Malformed(
            f"SET {setting} is not supported by this judge; it knows {_KNOWN_SETTINGS}"
        )
    raise _Malformed(
        f"SET {words[1]} is not a setting this judge knows; it knows {_KNOWN_SETTINGS}"
    )


def _parse_line(line: str, number: int) -> Command | None:
    """One line as a command, ``None`` for a blank line; raises :class:`_Malformed` for a
    line that starts with a command word but is not a valid command."""
    words = line.split()
    if not words:
        return None
    keyword = _keyword(words[0])
    if keyword == "SIGNON":
        return _signon(line, number, words)
    if keyword == "SIGNOFF":
        return Command("SIGNOFF", (), line, number)
    if keyword == "SET":
        return _set(line, number, words)
    if keyword == "HELP":
        return Command("HELP", tuple(w.lower() for w in words[1:]), line, number)
    if keyword in _GAME_ARG:
        if len(words) == 1:
            return Command(keyword, (), line, number)
        game = words[1].lower()
        if len(words) == 2 and _GAME_RE.fullmatch(game):
            return Command(keyword, (game,), line, number)
        raise _Malformed(
            f"{keyword} takes at most a game name: write '{keyword}' or '{keyword} <game>'"
        )
    if keyword in _NO_ARGS:
        if len(words) == 1:
            return Command(keyword, (), line, number)
        raise _Malformed(f"{keyword} takes nothing after it: write '{keyword}' alone")
    if keyword in _UNSUPPORTED:
        raise _Malformed(f"{keyword} is not supported by this judge")
    return Command("ORDERS", (line.strip(),), line, number)


def parse_commands(lines: Sequence[str]) -> tuple[list[Command], list[str]]:
    """Read ``lines`` as commands: (commands in order, lines after ``SIGNOFF``).

    Blank lines are skipped; the ``SIGNOFF`` command is included and the non-blank lines
    after it are returned, as written, unread.  Never raises.

    >>> commands, unread = parse_commands(["SIGNON Fwinter01 Secret", "A Par-Bur",
    ...                                    "signoff", "-- ", "Ann"])
    >>> [(c.name, c.args) for c in commands]
    [('SIGNON', ('F', 'winter01', 'Secret')), ('ORDERS', ('A Par-Bur',)), ('SIGNOFF', ())]
    >>> unread
    ['-- ', 'Ann']
    """
    if isinstance(lines, str):
        # A whole text passed by mistake: read its lines, not its characters.
        lines = lines.splitlines()
    commands: list[Command] = []
    try:
        items = list(lines)
    except Exception:
        return [], []
    for index, item in enumerate(items):
        line = item if isinstance(item, str) else str(item)
        try:
            command = _parse_line(line, index + 1)
        except _Malformed as exc:
            command = Command("UNKNOWN", tuple(line.split()), line, index + 1, str(exc))
        except Exception as exc:  # a bug here must not lose the rest of the message
            command = Command("UNKNOWN", (), line, index + 1, f"could not read this line ({exc})")
        if command is None:
            continue
        commands.append(command)
        if command.name == "SIGNOFF":
            rest = [str(x) for x in items[index + 1 :]]
            return commands, [x for x in rest if x.strip()]
    return commands, []
