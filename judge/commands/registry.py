"""The registry of mail commands: the one list the parser, HELP, the command table of
docs/mail.md and the list of the njudge's commands this judge lacks all come from.

Adding a command is adding its module and one line to :data:`COMMANDS`, in the place it
should take in HELP and the docs (the order of the list is theirs).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cached_property

from judge.commands import (
    become,
    clear,
    decide,
    ifblock,
    information,
    map,
    master,
    njudge,
    observe,
    orders,
    phase,
    press,
    press_settings,
    preview,
    proposals,
    resign,
    rollback,
    seats,
    settings,
    signon,
    terminate,
    votes,
)
from judge.commands.base import Audience, Family, Line, MailCommand, keyword
from judge.commands.helptext import docs_table, help_text
from judge.config import Press
from judge.services.phase_sections import HEADINGS

__all__ = ["COMMANDS", "FAMILIES", "REGISTRY", "Registry", "keyword"]


class Registry:
    """The mail commands, in the order HELP and the docs list them.

    Exactly one of them is the catch-all (``ORDERS``: every line no command's name
    starts); ``families`` are the commands named by a shared first word (``SET``).
    """

    def __init__(self, commands: Sequence[MailCommand], families: Sequence[Family]) -> None:
        self.commands = tuple(commands)
        self.families = {family.word: family for family in families}
        catch_alls = [command for command in self.commands if command.catch_all]
        if len(catch_alls) != 1:
            raise ValueError("a registry needs exactly one catch-all command (ORDERS)")
        self.catch_all = catch_alls[0]
        self._by_name: dict[tuple[str, ...], MailCommand] = {}
        for command in self.commands:
            if command.catch_all:
                continue
            words = tuple(command.name.split())
            if words in self._by_name:
                raise ValueError(f"two commands are called {command.name}")
            self._by_name[words] = command
        self._longest = max((len(words) for words in self._by_name), default=1)
        # The njudge lets some names be written with a space inside a word ("SIGN OFF",
        # "END PRESS"): such a line is read as if the words were joined.
        joins: dict[tuple[str, ...], tuple[str, ...]] = {}
        for command in self.commands:
            for spelling in command.spellings:
                joins[tuple(spelling.split())] = tuple(command.name.split())
            if command.block is not None:
                for spelling in command.block.spellings:
                    joins[tuple(spelling.split())] = (spelling.replace(" ", ""),)
        self._joins = sorted(joins.items(), key=lambda item: -len(item[0]))
        #: A block's end word alone on a line with no block open, when it is no command.
        self.strays = {
            end: command.block.stray.format(end=end)
            for command in self.commands
            if command.block is not None and command.block.stray is not None
            for end in (*command.block.ends, *command.block.inner)
        }
        #: Words that belong inside a block: a line they start, with no block open, is
        #: refused as a stray whatever follows them (``ELSE IF A Mun``).
        self.inner = frozenset(
            word for command in self.commands if command.block is not None
            for word in command.block.inner
        )  # fmt: skip

    def __iter__(self) -> Iterator[MailCommand]:
        return iter(self.commands)

    def line(self, text: str, number: int) -> Line | None:
        """``text`` as a :class:`Line` (its name not yet found); ``None`` when blank."""
        words = text.split()
        if not words:
            return None
        keys = [keyword(word) for word in words]
        for spelled, name in self._joins:
            if tuple(keys[: len(spelled)]) == spelled:
                rest = len(spelled)
                return Line(text, number, (*name, *words[rest:]), (*name, *keys[rest:]), 0, True)
        return Line(text, number, tuple(words), tuple(keys), 0)

    def find(self, keys: Sequence[str]) -> tuple[MailCommand, int] | None:
        """The command whose name the ``keys`` start with (the longest such name), and how
        many of the keys its name takes."""
        for size in range(min(self._longest, len(keys)), 0, -1):
            command = self._by_name.get(tuple(keys[:size]))
            if command is not None:
                return command, size
        return None

    def get(self, name: str) -> MailCommand | None:
        """The command that a :class:`~judge.commands.base.Command` called ``name`` runs."""
        if name == self.catch_all.name:
            return self.catch_all
        return self._by_name.get(tuple(name.split()))

    def family(self, word: str) -> Family | None:
        """The family whose commands start with ``word`` (``SET``), if any."""
        return self.families.get(word)

    def in_family(self, command: MailCommand) -> bool:
        """Whether ``command`` is one of a family's (``SET DRAW``), not a command of its
        own (``PRESS``)."""
        return self.family(command.name.split()[0]) is not None

    def known(self, family: Family) -> str:
        """The family's commands this judge has: ``SET PASSWORD, ... and SET DEADLINE``."""
        names = [
            command.name
            for command in self.commands
            if command.available and command.name.split()[0] == family.word
        ]
        return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)

    def ends_message(self, name: str) -> bool:
        """Whether nothing after a command called ``name`` is read."""
        command = self.get(name)
        return command is not None and command.ends_message

    @property
    def names(self) -> tuple[str, ...]:
        """The name of every command this judge has, as :attr:`Command.name` holds it."""
        return tuple(command.name for command in self.commands if command.available)

    @property
    def not_yet(self) -> tuple[MailCommand, ...]:
        """The njudge's commands this judge does not have yet."""
        return tuple(command for command in self.commands if not command.available)

    def audience(self, audience: Audience) -> tuple[MailCommand, ...]:
        """The commands this judge has for ``audience``."""
        return tuple(c for c in self.commands if c.available and c.help.audience is audience)

    @cached_property
    def help_text(self) -> str:
        """The answer to HELP."""
        return help_text(self)

    @cached_property
    def docs_table(self) -> str:
        """The command table of docs/mail.md, in Markdown."""
        return docs_table(self)


#: Every command, in the order HELP and the docs list them: what every player needs
#: first (HELP's opening lines), then the other commands, the game master's, and the
#: njudge's commands this judge does not have yet.
COMMANDS: tuple[MailCommand, ...] = (
    signon.Signon(),
    orders.Orders(),
    clear.Clear(),
    phase.PhaseCommand(),
    phase.EndPhase(),
    ifblock.IfCommand(),
    *(phase.Heading(word) for word in HEADINGS),
    signon.Signoff(),
    information.List(),
    information.HelpCommand(),
    information.History(),
    information.Summary(),
    map.Map(),
    settings.SetPassword(),
    settings.SetAddress(),
    settings.SetWait(),
    settings.SetNowait(),
    settings.SetTimezone(),
    settings.SetAbsence(),
    settings.SetNoabsence(),
    votes.SetDraw(),
    votes.SetNodraw(),
    votes.SetConcede(),
    votes.SetNoconcede(),
    resign.Resign(),
    observe.Observe(),
    observe.Watch(),
    master.Process(),
    master.Pause(),
    master.Resume(),
    master.SetDeadline(),
    master.SetGrace(),
    press_settings.SetPress(),
    press_settings.SetKind("WHITE", Press.WHITE),
    press_settings.SetKind("GREY", Press.GREY),
    press_settings.SetKind("NOPRESS", Press.NONE),
    press_settings.SetPartial(True),
    press_settings.SetPartial(False),
    become.Become(),
    preview.Preview(),
    rollback.Rollback(),
    decide.Accept(),
    decide.Decline(),
    terminate.Terminate(),
    seats.Eject(),
    press.Press(),
    press.Broadcast(),
    press.PostalPress(),
    proposals.Propose(),
    proposals.Vote(),
    *njudge.COMMANDS,
    *njudge.SETTINGS,
)

FAMILIES: tuple[Family, ...] = (settings.FAMILY,)

#: The judge's commands.
REGISTRY = Registry(COMMANDS, FAMILIES)
