"""The mail command language, compatible with the njudge and DPjudge habits.

Players write one command per line in the body of a message, in any case::

    SIGNON Fwinter01 secret
    A Par-Bur, A Mar S A Par-Bur
    SET WAIT
    SIGNOFF

Each command is one module of this package (its syntax, its behaviour and its help);
:mod:`judge.commands.registry` lists them, and :func:`parse_commands` reads lines by
that list.  HELP's text, the command table of docs/mail.md and the list of the njudge's
commands this judge does not have yet all come from the registry.
"""

from __future__ import annotations

from judge.commands.base import Command
from judge.commands.parser import MAX_COMMANDS, MAX_WORD, UNREAD, parse_commands
from judge.commands.registry import REGISTRY, Registry

__all__ = [
    "COMMAND_NAMES",
    "HELP_TEXT",
    "MAX_COMMANDS",
    "MAX_WORD",
    "NJUDGE_COMMANDS",
    "NJUDGE_SETTINGS",
    "REGISTRY",
    "UNREAD",
    "Command",
    "Registry",
    "parse_commands",
]

#: Every value :attr:`Command.name` can take (besides :data:`UNREAD`, which marks where
#: the reader stopped): the registry's commands and ``UNKNOWN``.
COMMAND_NAMES: tuple[str, ...] = (*REGISTRY.names, "UNKNOWN")

#: The njudge's commands this judge does not have yet, as players write them.
NJUDGE_COMMANDS: tuple[str, ...] = tuple(
    command.name for command in REGISTRY.not_yet if not REGISTRY.in_family(command)
)

#: The njudge's settings this judge does not have yet (``DRAW`` for ``SET DRAW`` ...).
NJUDGE_SETTINGS: tuple[str, ...] = tuple(
    command.name.split(None, 1)[1] for command in REGISTRY.not_yet if REGISTRY.in_family(command)
)

#: The answer to HELP.
HELP_TEXT = REGISTRY.help_text
