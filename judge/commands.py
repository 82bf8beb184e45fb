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
what is wrong and what would be right; so is a command of the njudge this judge does not
have yet (:data:`NJUDGE_COMMANDS`), and one that owns the lines after it (``PRESS`` up to
``ENDPRESS``, ``PHASE`` up to the next ``PHASE``) keeps them in its ``body``, never read
as orders.  Nothing after ``SIGNOFF`` is read.

Passwords are kept exactly as written (they are case-sensitive); game names are
lowercased.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from judge.engine.notation import MAX_WORD_LENGTH

__all__ = [
    "BLOCK_ENDS",
    "COMMAND_NAMES",
    "MAX_COMMANDS",
    "MAX_WORD",
    "NJUDGE_COMMANDS",
    "NJUDGE_SETTINGS",
    "UNREAD",
    "Command",
    "parse_commands",
]

#: The most commands and order lines read from one message; the lines after them are
#: reported as not read.  A turn's orders for the largest power fit many times over.
MAX_COMMANDS = 200
#: The name of the last "command" :func:`parse_commands` returns when it stopped at
#: :data:`MAX_COMMANDS`: its ``error`` says what was not read (the service lists it among
#: the parts of the message not read; it is no command of the sender's, nor an error).
UNREAD = "UNREAD"
#: The longest word a command line may hold (a command word, power, game or password;
#: an address of ``SET ADDRESS`` has its own limit of 254); a longer word is refused as
#: such, never searched.  The order parser's limit: one word limit for every line.
MAX_WORD = MAX_WORD_LENGTH
_QUOTE_LIMIT = 60

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
    ``UNKNOWN``; ``body`` the lines a block command owns (a ``PRESS`` message, the
    orders after ``PHASE``), as written, without the line that ends the block.
    """

    name: str
    args: tuple[str, ...]
    line: str
    number: int
    error: str | None = None
    body: tuple[str, ...] = ()


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
#: The njudge's commands (its ``index`` help file) that this judge does not have yet,
#: as players write them.  Each is answered "X is a command of the njudge that this
#: judge does not have yet" with the error flag, instead of being read as orders; a
#: block command's lines (see :data:`BLOCK_ENDS`) are skipped whole.  The shapes in
#: ``_SHAPES`` keep ordinary prose that starts with the same word ("Get
#: Outlook for iOS", "Press the button") a line that is simply not read.  HELP and
#: docs/mail.md list these words; a test keeps them in step.
NJUDGE_COMMANDS = (
    "BECOME",
    "BROADCAST",
    "CREATE",
    "DIARY",
    "EJECT",
    "ENDBROADCAST",
    "ENDPRESS",
    "FORCE BEGIN",
    "GET",
    "IAMALSO",
    "INFO PLAYER",
    "MAP",
    "OBSERVE",
    "PHASE",
    "POSTALPRESS",
    "PREDICT",
    "PRESS",
    "PROMOTE",
    "REGISTER",
    "ROLLBACK",
    "SEND",
    "TERMINATE",
    "UNSTART",
    "VERSION",
    "WATCH",
    "WHOGAME",
    "WHOIS",
    "WITHDRAW",
)

#: The njudge's settings this judge does not have yet (``SET DRAW`` ...), answered the
#: same way.
NJUDGE_SETTINGS = (
    "ACCESS",
    "CONCEDE",
    "DRAW",
    "GRACE",
    "GREY",
    "MODERATE",
    "NMR",
    "NOCONCEDE",
    "NODRAW",
    "NONMR",
    "NOPRESS",
    "PARTIAL",
    "PREFERENCE",
    "PRESS",
    "VARIANT",
    "WHITE",
)

#: The block commands: the lines that may end each one's block, alone on a line (a
#: ``SIGNOFF`` ends the message too).  With none of them, the block runs to the end of
#: the message.  ``PHASE`` (future orders) also ends where the next ``PHASE`` begins.
BLOCK_ENDS: dict[str, tuple[str, ...]] = {
    "PRESS": ("ENDPRESS", "ENDBROADCAST"),
    "BROADCAST": ("ENDPRESS", "ENDBROADCAST"),
    "POSTALPRESS": ("ENDPRESS", "ENDBROADCAST"),
    "DIARY": ("ENDPRESS", "ENDBROADCAST"),
    "REGISTER": ("END",),
    "PHASE": ("ENDPHASE", "PHASE"),
}

# The njudge allows spaces inside some command words ("SIGN OFF", "END PRESS", "I AM
# ALSO"): the words are joined before the line is read.  Not "WHO IS": that is prose
# far more often than a command.
_JOINED: dict[tuple[str, ...], str] = {
    ("SIGN", "ON"): "SIGNON",
    ("SIGN", "OFF"): "SIGNOFF",
    ("END", "PRESS"): "ENDPRESS",
    ("END", "BROADCAST"): "ENDBROADCAST",
    ("END", "PHASE"): "ENDPHASE",
    ("POSTAL", "PRESS"): "POSTALPRESS",
    ("WHO", "GAME"): "WHOGAME",
    ("I", "AM", "ALSO"): "IAMALSO",
    ("FORCE", "BEGIN"): "FORCE BEGIN",
    ("INFO", "PLAYER"): "INFO PLAYER",
}
_PRESS_OPTIONS = frozenset(
    {"TO", "WHITE", "GREY", "GRAY", "ANONYMOUS", "ANONYMOUSLY", "UNANONYMOUS",
     "UNANONYMOUSLY", "FAKE", "NOFAKE", "BROADCAST", "PARTIAL", "ALL"}
)  # fmt: skip
_SEASONS = frozenset({"SPRING", "SUMMER", "FALL", "AUTUMN", "WINTER", "S", "U", "F", "W"})
_PHASE_CODE_RE = re.compile(r"[SUFW]\d{4}[MRAB]")


def _press_shape(keys: list[str]) -> bool:
    return len(keys) == 1 or keys[1] in _PRESS_OPTIONS or keys[1][:1] in ("+", "-")


def _phase_shape(keys: list[str]) -> bool:
    """``PHASE F1901M`` or ``PHASE Fall 1901 [Movement]``."""
    if len(keys) == 2:
        return _PHASE_CODE_RE.fullmatch(keys[1]) is not None
    return len(keys) in (3, 4) and keys[1] in _SEASONS and keys[2].isdigit()


def _alone(keys: list[str]) -> bool:
    return len(keys) == 1


def _address_shape(keys: list[str]) -> bool:
    return len(keys) == 2 and "@" in keys[1].strip("@")


#: Each njudge command's shape, as the upper-cased words of a line (the command word
#: first, joined as in :data:`_JOINED`): a line of another shape is not that command.
_SHAPES: dict[str, Callable[[list[str]], bool]] = {
    "BECOME": lambda k: len(k) == 2,
    "BROADCAST": _press_shape,
    "CREATE": lambda k: len(k) >= 3 and k[1].startswith("?"),
    "DIARY": lambda k: len(k) == 1 or k[1] in ("RECORD", "LIST", "READ", "DELETE"),
    "EJECT": lambda k: len(k) == 2,
    "ENDBROADCAST": _alone,
    "ENDPRESS": _alone,
    "FORCE BEGIN": _alone,
    "GET": lambda k: len(k) == 2,
    "IAMALSO": _address_shape,
    "INFO PLAYER": lambda k: len(k) == 2,
    "MAP": lambda k: len(k) == 2 or (len(k) == 3 and k[2] == "N"),
    "OBSERVE": lambda k: len(k) == 3,
    "PHASE": _phase_shape,
    "POSTALPRESS": _alone,
    "PREDICT": _alone,
    "PRESS": _press_shape,
    "PROMOTE": _address_shape,
    "REGISTER": _alone,
    "ROLLBACK": lambda k: len(k) <= 2,
    "SEND": lambda k: len(k) == 2 or (len(k) == 3 and k[1] == "ME"),
    "TERMINATE": _alone,
    "UNSTART": _alone,
    "VERSION": lambda k: len(k) <= 2,
    "WATCH": lambda k: len(k) == 3,
    "WHOGAME": lambda k: len(k) <= 3,
    "WHOIS": lambda k: len(k) >= 2,
    "WITHDRAW": _alone,
}
assert set(_SHAPES) == set(NJUDGE_COMMANDS)


def _keywords(words: list[str]) -> list[str]:
    """The words of a line as keywords, with the njudge's spaced command words joined
    (``SIGN OFF`` is ``SIGNOFF``)."""
    keys = [_keyword(w) for w in words]
    for joined, word in _JOINED.items():
        if tuple(keys[: len(joined)]) == joined:
            return [word, *keys[len(joined) :]]
    return keys


def _not_yet(word: str) -> str:
    return f"{word} is a command of the njudge that this judge does not have yet"


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
    if setting == "NO" and rest and "NO" + _keyword(rest[0]) in NJUDGE_SETTINGS:
        setting = "NO" + _keyword(rest[0])  # "SET NO DRAW"
    if setting in NJUDGE_SETTINGS:
        raise _Malformed(f"{_not_yet(f'SET {setting}')}; it knows {_KNOWN_SETTINGS}")
    raise _Malformed(
        f"SET {words[1]} is not a setting this judge knows; it knows {_KNOWN_SETTINGS}"
    )


class _NotYet(Exception):
    """A line that is one of the njudge's commands this judge does not have yet
    (:data:`NJUDGE_COMMANDS`); ``block`` when the command owns the lines after it."""

    def __init__(self, word: str, block: bool) -> None:
        super().__init__(_not_yet(word))
        self.word = word
        self.block = block


def _q(text: str) -> str:
    """``text`` quoted for a message, shortened when long."""
    if len(text) > _QUOTE_LIMIT:
        text = text[: _QUOTE_LIMIT - 3] + "..."
    return repr(text)


def _parse_line(line: str, number: int) -> Command | None:
    """One line as a command, ``None`` for a blank line; raises :class:`_Malformed` for a
    line that starts with a command word but is not a valid command (or holds a word
    longer than :data:`MAX_WORD`), :class:`_NotYet` for one of the njudge's commands this
    judge does not have yet."""
    words = line.split()
    if not words:
        return None
    long_at = next((i for i, word in enumerate(words) if len(word) > MAX_WORD), None)
    if long_at is None:
        return _command(line, number, words)
    # Named by its place, never quoted: the long word may be a password.
    too_long = _Malformed(
        f"word {long_at + 1} of this line is {len(words[long_at]):,} characters long; no "
        f"command word, name or password is longer than {MAX_WORD} characters"
    )
    try:
        command = _command(line, number, words)
    except (_Malformed, _NotYet):
        raise too_long from None
    if command.name in ("ORDERS", "SET ADDRESS"):
        # A line of orders: the order parser refuses the word itself, naming it.  An
        # address has its own limit, checked (and said) where it is used.
        return command
    raise too_long


def _command(line: str, number: int, words: list[str]) -> Command:
    """The non-blank ``line`` of ``words`` as a command (see :func:`_parse_line`)."""
    keys = _keywords(words)
    keyword = keys[0]
    spaced = keyword != _keyword(words[0])
    if spaced:
        words = [keyword, *words[len(words) - len(keys) + 1 :]]
    if keyword == "SIGNON":
        return _signon(line, number, words)
    if keyword == "SIGNOFF" and (len(keys) == 1 or not spaced):
        # "SIGN OFF" counts alone on its line only: "Sign off the deal" is prose.
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
    if keyword == "ENDPHASE" and len(keys) == 1:
        raise _Malformed("ENDPHASE ends the orders after a PHASE line, and no PHASE came before")
    shape = _SHAPES.get(keyword)
    if shape is not None and shape(keys):
        block = keyword in BLOCK_ENDS and (keyword != "DIARY" or keys[1:] in ([], ["RECORD"]))
        raise _NotYet(keyword, block)
    return Command("ORDERS", (line.strip(),), line, number)


#: What a skipped block did not do, for the answer.
_BLOCK_NOT_DONE = {
    "PRESS": "no press was sent",
    "BROADCAST": "no press was sent",
    "POSTALPRESS": "no press was sent",
    "DIARY": "no diary entry was made",
    "REGISTER": "nothing was registered",
    "PHASE": "no orders were stored for that phase",
}


def _not_read(count: int, where: str) -> str:
    """``the line after it, up to ENDPRESS, was not read`` (``where`` may be empty)."""
    subject = "the line after it" if count == 1 else f"the {count} lines after it"
    verb = "was" if count == 1 else "were"
    return f"{subject}{where} {verb} not read"


def _block(items: list[str], start: int, word: str) -> tuple[Command, int]:
    """The block command ``word`` on line ``start`` (0-based) with the lines it owns, and
    the index of the first line after the block (its end line is the block's, except a
    ``SIGNOFF``, which is left to be read, and the next ``PHASE``)."""
    ends = BLOCK_ENDS[word]
    body: list[str] = []
    end_word: str | None = None
    index = start + 1
    while index < len(items):
        keys = _keywords(items[index].split())
        if len(keys) == 1 and keys[0] in ends and keys[0] != "PHASE":
            end_word = keys[0]
            index += 1
            break
        if len(keys) == 1 and keys[0] == "SIGNOFF":
            end_word = "SIGNOFF"
            break
        if "PHASE" in ends and keys and keys[0] == "PHASE" and _phase_shape(keys):
            end_word = "the next PHASE"
            break
        body.append(items[index])
        index += 1
    count = sum(1 for line in body if line.strip())
    not_done = _BLOCK_NOT_DONE[word]
    if count == 0:
        missing = "" if end_word is not None else f"; it has no {ends[0]} after it"
        error = f"{_not_yet(word)} ({not_done}){missing}"
    elif end_word is not None:
        error = f"{_not_yet(word)}: {_not_read(count, f', up to {end_word},')} ({not_done})"
    elif word == "PHASE":
        # Future orders run to the end of the message: no end line is needed.
        error = f"{_not_yet(word)}: {_not_read(count, '')} ({not_done})"
    else:
        error = (
            f"{_not_yet(word)}; it has no {ends[0]} after it, so "
            f"{_not_read(count, ', to the end of the message,')} ({not_done})"
        )
    line = items[start]
    command = Command("UNKNOWN", tuple(line.split()), line, start + 1, error, tuple(body))
    return command, index


def parse_commands(lines: Sequence[str]) -> tuple[list[Command], list[str]]:
    """Read ``lines`` as commands: (commands in order, lines after ``SIGNOFF``).

    Blank lines are skipped; the ``SIGNOFF`` command is included and the non-blank lines
    after it are returned, as written, unread.  A block command (``PRESS`` ...
    ``ENDPRESS``, see :data:`BLOCK_ENDS`) is one command holding its lines in ``body``:
    they are never read as orders or commands.  Never raises.

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
        items = [item if isinstance(item, str) else str(item) for item in lines]
    except Exception:
        return [], []
    index = 0
    while index < len(items):
        line = items[index]
        if len(commands) >= MAX_COMMANDS and line.strip():
            rest = sum(1 for item in items[index + 1 :] if item.strip())
            after = "" if not rest else f" and the {rest:,} line{'s' if rest > 1 else ''} after it"
            # Not an error of the line: the reader stopped (see UNREAD).
            commands.append(Command(UNREAD, (), line, index + 1, (
                f"line {index + 1}{after}: at most {MAX_COMMANDS} commands and order lines "
                "are read from one message; send the rest in another message"
            )))  # fmt: skip
            return commands, []
        command: Command | None
        try:
            command = _parse_line(line, index + 1)
        except _NotYet as exc:
            if exc.block:
                command, index = _block(items, index, exc.word)
                commands.append(command)
                continue
            command = Command("UNKNOWN", tuple(line.split()), line, index + 1, str(exc))
        except _Malformed as exc:
            command = Command("UNKNOWN", tuple(line.split()), line, index + 1, str(exc))
        except Exception as exc:  # a bug here must not lose the rest of the message
            command = Command("UNKNOWN", (), line, index + 1, f"could not read this line ({exc})")
        index += 1
        if command is None:
            continue
        commands.append(command)
        if command.name == "SIGNOFF":
            return commands, [x for x in items[index:] if x.strip()]
    return commands, []
