"""The njudge's commands (its ``index`` help file) that this judge does not have yet.

Each is answered "X is a command of the njudge that this judge does not have yet" with
the error flag, instead of being read as orders.  A command is known by its shape (the
words after its name): a line of another shape is prose that starts with the same word
("Get Outlook for iOS", "Press the button") and is simply not read.  A command that owns
the lines after it (``PRESS`` up to ``ENDPRESS``, ``PHASE`` up to the next ``PHASE``)
has them skipped whole, never read as orders.  When this judge gets one of them, its
entry here gives way to a module of its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from judge.commands.base import (
    Audience,
    Block,
    Command,
    Help,
    Line,
    MailCommand,
    NotYet,
    not_yet,
)
from judge.services.errors import ServiceError

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["COMMANDS", "SETTINGS", "Lacking"]

#: The words of a line after the command's name, as keywords.
Shape = Callable[[Sequence[str]], bool]


class Lacking(MailCommand):
    """A command of the njudge this judge does not have yet: answered so, never run."""

    available = False

    def __init__(
        self,
        name: str,
        shape: Shape | None = None,
        *,
        spellings: tuple[str, ...] = (),
        block: Block | None = None,
        not_done: str = "",
        owns: Shape | None = None,
    ) -> None:
        """``shape`` the words after the name that make the line this command (any, when
        None); ``block`` the lines it owns, ``not_done`` what skipping them did not do
        ("no press was sent"), ``owns`` which of its shapes own them (all by default)."""
        self.name = name
        self.shape = shape
        self.spellings = spellings
        self.block = block
        self.not_done = not_done
        self.owns = owns
        self.help = Help(
            usage=(name,),
            description="a command of the njudge that this judge does not have yet",
            audience=Audience.ANYONE,
        )

    def parse(self, line: Line) -> Command | None:
        if self.shape is not None and not self.shape(line.arg_keys):
            return None
        raise NotYet(self.name)

    def owns_block(self, line: Line) -> bool:
        return self.block is not None and (self.owns is None or self.owns(line.arg_keys))

    def close_block(self, command: Command, body: Sequence[str], end: str | None) -> Command:
        """The ``UNKNOWN`` command with its body, and an error that says how much of the
        message was skipped, and up to where."""
        assert self.block is not None
        count = sum(1 for line in body if line.strip())
        answer, first_end = not_yet(self.name), self.block.ends[0]
        if count == 0:
            missing = "" if end is not None else f"; it has no {first_end} after it"
            error = f"{answer} ({self.not_done}){missing}"
        elif end is not None:
            error = f"{answer}: {_not_read(count, f', up to {end},')} ({self.not_done})"
        elif self.block.next_ends:
            # Future orders run to the end of the message: no end line is needed.
            error = f"{answer}: {_not_read(count, '')} ({self.not_done})"
        else:
            error = (
                f"{answer}; it has no {first_end} after it, so "
                f"{_not_read(count, ', to the end of the message,')} ({self.not_done})"
            )
        return replace(command, error=error, body=tuple(body))

    def process(self, conversation: Conversation, command: Command) -> None:
        raise ServiceError(not_yet(self.name))


def _not_read(count: int, where: str) -> str:
    """``the line after it, up to ENDPRESS, was not read`` (``where`` may be empty)."""
    subject = "the line after it" if count == 1 else f"the {count} lines after it"
    verb = "was" if count == 1 else "were"
    return f"{subject}{where} {verb} not read"


_SEASONS = frozenset({"SPRING", "SUMMER", "FALL", "AUTUMN", "WINTER", "S", "U", "F", "W"})
_PHASE_CODE_RE = re.compile(r"[SUFW]\d{4}[MRAB]")


def _phase(args: Sequence[str]) -> bool:
    """``PHASE F1901M`` or ``PHASE Fall 1901 [Movement]``."""
    if len(args) == 1:
        return _PHASE_CODE_RE.fullmatch(args[0]) is not None
    return len(args) in (2, 3) and args[0] in _SEASONS and args[1].isdigit()


def _alone(args: Sequence[str]) -> bool:
    return not args


def _one(args: Sequence[str]) -> bool:
    return len(args) == 1


def _two(args: Sequence[str]) -> bool:
    return len(args) == 2


def _address(args: Sequence[str]) -> bool:
    return len(args) == 1 and "@" in args[0].strip("@")


_PRESS_ENDS = ("ENDPRESS", "ENDBROADCAST")
_PRESS = Block(_PRESS_ENDS)

#: The njudge's commands this judge does not have yet, as players write them.
COMMANDS: tuple[Lacking, ...] = (
    Lacking("CREATE", lambda a: len(a) >= 2 and a[0].startswith("?")),
    Lacking(
        "DIARY",
        lambda a: not a or a[0] in ("RECORD", "LIST", "READ", "DELETE"),
        block=_PRESS,
        not_done="no diary entry was made",
        owns=lambda a: list(a) in ([], ["RECORD"]),
    ),
    Lacking("FORCE BEGIN", _alone),
    Lacking("GET", _one),
    Lacking("IAMALSO", _address, spellings=("I AM ALSO",)),
    Lacking("INFO PLAYER", _one),
    Lacking("PROMOTE", _address),
    Lacking("REGISTER", _alone, block=Block(("END",)), not_done="nothing was registered"),
    Lacking("SEND", lambda a: len(a) == 1 or (len(a) == 2 and a[0] == "ME")),
    Lacking("UNSTART", _alone),
    Lacking("VERSION", lambda a: len(a) <= 1),
    Lacking("WHOGAME", lambda a: len(a) <= 2, spellings=("WHO GAME",)),
    # Not "WHO IS": that is prose far more often than a command.
    Lacking("WHOIS", lambda a: len(a) >= 1),
    Lacking("WITHDRAW", _alone),
)


def _setting(word: str) -> Lacking:
    """``SET <word>`` in any shape; ``SET NO DRAW`` is ``SET NODRAW``."""
    spelled = (f"SET NO {word[2:]}",) if word.startswith("NO") else ()
    return Lacking(f"SET {word}", spellings=spelled)


#: The njudge's settings this judge does not have yet (``SET NMR`` ...).
SETTINGS: tuple[Lacking, ...] = tuple(
    _setting(word)
    for word in (
        "ACCESS", "MODERATE", "NMR", "NONMR", "PREFERENCE", "VARIANT",
    )
)  # fmt: skip
