"""What every mail command is made of: its help, the line it reads, the value it reads
the line into, and the class each command module fills in.

A command is one small class (:class:`MailCommand`): its ``name`` (the words that start
its line), its :class:`Help`, how it reads its line (:meth:`MailCommand.parse`), what it
does (:meth:`MailCommand.process`, given the message's conversation) and, for a command
that owns the lines after it (``PRESS`` ... ``ENDPRESS``), its :class:`Block`.  The
registry (:mod:`judge.commands.registry`) lists them; the parser, HELP and the command
table of docs/mail.md come from it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import TYPE_CHECKING

from judge.engine.board import standard_map

if TYPE_CHECKING:  # only a type here: the conversation runs the commands, not the reverse
    from judge.services.conversation import Conversation

__all__ = [
    "GAME_RE",
    "POWER_NAME_RE",
    "Audience",
    "Block",
    "Command",
    "Family",
    "Help",
    "Line",
    "MailCommand",
    "Malformed",
    "NotYet",
    "is_address",
    "keyword",
    "not_yet",
    "read_power_names",
]


@dataclass(frozen=True)
class Command:
    """One line of a message, read as a command.

    ``name`` is one of :data:`~judge.commands.COMMAND_NAMES`; ``args`` its arguments (for
    ``ORDERS`` the stripped line, for ``UNKNOWN`` the words of the line); ``line`` the
    line as written; ``number`` its 1-based position in the lines given; ``error`` set
    only for ``UNKNOWN``; ``body`` the lines a block command owns (a ``PRESS`` message,
    the orders after ``PHASE``), as written, without the line that ends the block;
    ``end`` the line that ended it (``ENDPRESS``, ``SIGNOFF``, ``the next PHASE``; None:
    the end of the message, or no block).
    """

    name: str
    args: tuple[str, ...]
    line: str
    number: int
    error: str | None = None
    body: tuple[str, ...] = ()
    end: str | None = None


class Audience(Enum):
    """Who may use a command."""

    ANYONE = "anyone"
    PLAYER = "player"
    MASTER = "game master"


@dataclass(frozen=True)
class Help:
    """A command's help: what HELP and the command table of docs/mail.md say of it.

    ``usage`` the forms it is written in (``LIST [game]``); ``description`` what it
    does, in one line; ``audience`` who may use it; ``master_usage`` the form a game
    master writes, for a command anyone may use (``SIGNON M<game> <password>``: HELP
    names it first among the game master's) or a player's command with a game master's
    form (``SET PASSWORD <power> <new>``: named after the game master's commands);
    ``guide`` the lines HELP opens with for the commands every player needs (signing on,
    orders), written as they appear: a command without a guide is listed by its usage.
    """

    usage: tuple[str, ...]
    description: str
    audience: Audience
    master_usage: tuple[str, ...] = ()
    guide: str = ""


@dataclass(frozen=True)
class Block:
    """The lines a command owns, after its own line, up to a line that ends them.

    ``ends`` the words that end the block alone on a line (``ends[0]`` is the one named
    when the block has none); ``spellings`` those words written with a space, as the
    njudge allows (``END PHASE``); ``next_ends`` whether the command's next line (one of
    its shape) ends the block too (``PHASE``); ``stray`` the error for a line that is
    one of ``ends`` alone with no block open, when that word is no command of its own
    (``{end}`` in it is that word); ``nests`` see below.  A
    ``SIGNOFF`` ends every block, and the message; with no end line the block runs to the
    end of the message.
    """

    ends: tuple[str, ...]
    spellings: tuple[str, ...] = ()
    next_ends: bool = False
    stray: str | None = None
    #: Blocks of the same command nest (``IF`` ... ``IF`` ... ``ENDIF`` ... ``ENDIF``): a
    #: line starting with the command's name opens an inner block, kept in the body with
    #: its end line, and only the end line of the outermost block ends it.
    nests: bool = False
    #: Words that belong inside the block (``ELSE``, ``ELSEIF`` of an IF block): a line
    #: starting with one, with no block open, gets the ``stray`` error too.
    inner: tuple[str, ...] = ()


@dataclass(frozen=True)
class Line:
    """One non-blank line, as a command's :meth:`MailCommand.parse` sees it.

    ``words`` the words as written, except that the command's name comes first as its
    words (``SIGN OFF`` is ``SIGNOFF``, ``SET NO WAIT`` is ``SET NOWAIT``); ``keys`` the
    same words as keywords (upper case, a trailing ``.`` ``:`` ``!`` dropped); ``size``
    how many of them are the command's name; ``spaced`` whether the name was written
    with a space inside one of its words.
    """

    text: str
    number: int
    words: tuple[str, ...]
    keys: tuple[str, ...]
    size: int
    spaced: bool = False

    @property
    def args(self) -> tuple[str, ...]:
        """The words after the command's name, as written."""
        return self.words[self.size :]

    @property
    def arg_keys(self) -> tuple[str, ...]:
        """The words after the command's name, as keywords."""
        return self.keys[self.size :]

    def named(self, size: int) -> Line:
        """This line with its first ``size`` words as the command's name."""
        return Line(self.text, self.number, self.words, self.keys, size, self.spaced)

    def command(self, name: str, args: Sequence[str] = ()) -> Command:
        """This line read as command ``name`` with ``args``."""
        return Command(name, tuple(args), self.text, self.number)


class Malformed(Exception):
    """A line that starts with a command's name but is not a valid command; the message
    says what is wrong and what would be right."""


class NotYet(Exception):
    """A line that is one of the njudge's commands this judge does not have yet."""

    def __init__(self, name: str) -> None:
        super().__init__(not_yet(name))
        self.name = name


def keyword(word: str) -> str:
    """A word as a command keyword: upper case, trailing ``.`` ``:`` ``!`` removed.

    Only ASCII words count, so that no exotic letter case-maps onto a command word.
    """
    word = word.rstrip(".:!")
    return word.upper() if word.isascii() else ""


def read_power_names(
    words: Sequence[str], unknown: Callable[[str], str], specials: str = ""
) -> tuple[tuple[str, ...], frozenset[str]]:
    """The powers ``words`` name, each once, in the order named, and which of the
    ``specials`` letters (PRESS's ``M`` and ``O``) are among their initials: the one
    reader of a list of powers (``PRESS TO``, ``SET DRAW``, ``PROPOSE DRAW``).

    A word (or each part of it between commas) of distinct initials is initials run
    together, as on the njudge (``FR`` is France and Russia: no power's name is spelt
    with distinct initials only); any other is a power's name, or an initial alone;
    ``AND`` and lone punctuation are passed over.  Raises :class:`Malformed` with
    ``unknown(part)``, ``part`` as written, for a part that names no power.

    >>> read_power_names(["Austria,", "e", "and", "FR."], str)
    (('Austria', 'England', 'France', 'Russia'), frozenset())
    >>> read_power_names(["FGM"], str, specials="MO")
    (('France', 'Germany'), frozenset({'M'}))
    """
    game_map = standard_map()
    letters = {letter.upper(): power for power, letter in game_map.power_letter.items()}
    powers: list[str] = []
    named: set[str] = set()
    for word in words:
        for part in word.split(","):
            bare = part.strip(".;:!")
            key = keyword(bare)
            if not bare or key == "AND":
                continue
            initials = all(c in letters or c in specials for c in key)
            if key and initials and len(set(key)) == len(key):
                found = [letters[c] for c in key if c in letters]
                named.update(c for c in key if c not in letters)
            else:
                # Any script: the map's own matcher keeps letters beyond a-z, so that a
                # foreign word cannot shrink into a power's name.
                power = game_map.find_power(bare) if len(bare) >= 3 else None
                if power is None:
                    raise Malformed(unknown(part))
                found = [power]
            powers += [power for power in found if power not in powers]
    return tuple(powers), frozenset(named)


def not_yet(name: str) -> str:
    """The answer to a command of the njudge this judge does not have yet."""
    return f"{name} is a command of the njudge that this judge does not have yet"


@dataclass(frozen=True)
class Family:
    """Commands named by two words, the first shared (``SET PASSWORD``, ``SET WAIT``):
    the errors for the first word alone and for a second word that names none of them.

    Each text may hold ``{known}`` (the family's commands this judge has, in the
    registry's order: "SET PASSWORD, ... and SET DEADLINE"); ``unknown`` also ``{word}``
    (the second word as written); ``not_yet`` is added after a "not yet" answer.
    """

    word: str
    missing: str
    unknown: str
    not_yet: str


class MailCommand:
    """One mail command: its name, help, syntax and behaviour.

    A subclass sets ``name`` and ``help``, reads its line in :meth:`parse` and does its
    work in :meth:`process`; the defaults read a command that takes nothing after it.
    """

    #: The command's words as players write them, in upper case (``SET PASSWORD``): a
    #: line whose first words are these is this command.
    name: str
    help: Help
    #: Other ways to write the name, with a space inside a word (``SIGN ON``).
    spellings: tuple[str, ...] = ()
    #: The lines it owns after its own line, if any.
    block: Block | None = None
    #: False for a command of the njudge this judge does not have yet: its line is
    #: answered so (:class:`NotYet`), never processed.
    available: bool = True
    #: Whether its line may hold words longer than the command reader takes (an order, an
    #: address): they are checked where they are used.
    long_words: bool = False
    #: Whether nothing after it is read (``SIGNOFF``); it also ends any block.
    ends_message: bool = False
    #: Whether a command that takes nothing, written with words after it, is prose that
    #: starts with its name ("Terminate the alliance": read as orders) rather than the
    #: command written wrong (see :meth:`parse`).
    words_after_are_prose: bool = False
    #: Whether it reads every line that no command's name starts (the ORDERS line): one
    #: command of the registry does, and is never found by its name.
    catch_all: bool = False

    def parse(self, line: Line) -> Command | None:
        """``line`` as this command; ``None`` when the line is not this command after all
        (prose that starts with the same word: it is read as orders); raises
        :class:`Malformed` for a line that is this command written wrong, :class:`NotYet`
        for a command this judge does not have yet."""
        if line.args:
            if self.words_after_are_prose:
                return None
            raise Malformed(f"{self.name} takes nothing after it: write '{self.name}' alone")
        return line.command(self.name)

    def owns_block(self, line: Line) -> bool:
        """Whether this line of the command owns the lines after it."""
        return self.block is not None

    def close_block(self, command: Command, body: Sequence[str], end: str | None) -> Command:
        """The command with the lines its block held (``end``: the line that ended it,
        ``SIGNOFF``, ``the next PHASE``, or ``None`` at the end of the message)."""
        return replace(command, body=tuple(body), end=end)

    def process(self, conversation: Conversation, command: Command) -> None:
        """Carry out ``command`` in ``conversation``: add to its reply, or raise
        :class:`~judge.services.errors.ServiceError` with the reason it was refused."""
        raise NotImplementedError(self.name)


#: A game name as a command takes it (lower-cased first).
GAME_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
#: A power's name before the ``@`` of ``SIGNON france@game``.
POWER_NAME_RE = re.compile(r"[a-z][a-z0-9_-]{0,39}")
# The characters an address of SET ADDRESS may not hold besides its one "@": nothing that
# could break an SMTP envelope or a header.
_NOT_IN_ADDRESS = re.compile(r"[\s<>,;\x00-\x1f\x7f]")


def is_address(text: str) -> bool:
    """Whether ``text`` is an address SET ADDRESS takes: ``local@domain.tld`` with one
    ``@``, a dot inside the domain, and no blank, bracket, comma, semicolon or control
    character.  Loose on purpose (the mail server has the last word); one pass over the
    text (a pattern that tried every dot as the domain's took quadratic time)."""
    local, at, domain = text.partition("@")
    return (
        bool(at and local)
        and "@" not in domain
        and "." in domain[1:-1]
        and _NOT_IN_ADDRESS.search(text) is None
    )
