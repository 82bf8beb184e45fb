"""HELP's answer and the command table of docs/mail.md, both made from the registry's
commands and their :class:`~judge.commands.base.Help`."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from judge.commands.base import Audience, MailCommand

if TYPE_CHECKING:
    from judge.commands.registry import Registry

__all__ = ["HELP_OPENING", "docs_table", "help_text"]

#: HELP's first line (the mail rules know it: an answer that starts so is a judge's).
HELP_OPENING = "Send commands in the body of an email, one per line:"
# The lists of usages keep each usage whole on a line and run to 88 columns, the width
# of the guide's widest example lines; the other paragraphs, to 80.
_LIST_WIDTH = 88
_WIDTH = 80


def _fill(text: str, width: int = _WIDTH) -> str:
    """``text`` broken into lines of at most ``width`` characters, at spaces (not inside
    the words :func:`_keep_together` joined)."""
    lines = textwrap.fill(text, width, break_long_words=False, break_on_hyphens=False)
    return lines.replace("\xa0", " ")


def _keep_together(words: str) -> str:
    """``words`` kept on one line by :func:`_fill`."""
    return words.replace(" ", "\xa0")


def _usages(commands: tuple[MailCommand, ...]) -> str:
    return ", ".join(_keep_together(usage) for command in commands for usage in command.help.usage)


def _or(words: list[str]) -> str:
    """``A, B or C``."""
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else "".join(words)


def help_text(registry: Registry) -> str:
    """The answer to HELP: the guide of the commands every player needs first, the other
    commands by their usage, the game master's, and the njudge's commands this judge does
    not have yet."""
    guided = [command for command in registry if command.available and command.help.guide]
    others = tuple(
        command
        for command in registry
        if command.available
        and not command.help.guide
        and command.help.audience is not Audience.MASTER
    )
    # The game master's forms of the commands anyone may use (SIGNON M<game>) open the
    # game masters' line; those of the players' commands (SET PASSWORD <power> <new>)
    # follow the game master's own commands.
    master_signon = [
        usage
        for command in registry
        if command.available and command.help.audience is Audience.ANYONE
        for usage in command.help.master_usage
    ]
    master_forms = [
        _keep_together(usage)
        for command in registry
        if command.available and command.help.audience is Audience.PLAYER
        for usage in command.help.master_usage
    ]
    parts = [HELP_OPENING, *(command.help.guide.rstrip("\n") for command in guided)]
    parts.append(_fill(f"Other commands: {_usages(others)}.", _LIST_WIDTH))
    masters = ", ".join([_usages(registry.audience(Audience.MASTER)), *master_forms])
    signon = ", ".join(_keep_together(usage) for usage in master_signon)
    parts.append(_fill(f"Game masters: {signon}, then {masters}.", _LIST_WIDTH))
    parts.append(_fill(_not_yet_paragraph(registry)))
    return "\n".join(parts)


def _not_yet_paragraph(registry: Registry) -> str:
    """What HELP says of the njudge's commands this judge does not have yet."""
    lacking = registry.not_yet
    commands = [c.name for c in lacking if not registry.in_family(c)]
    settings = [c.name for c in lacking if registry.in_family(c)]
    # The block commands, grouped by the line that ends their block.
    blocks: dict[str, list[str]] = {}
    for command in lacking:
        if command.block is not None:
            blocks.setdefault(command.block.ends[0], []).append(command.name)
    groups = [f"{_or(names)} (up to {end})" for end, names in blocks.items()]
    text = "Commands of the njudge that this judge does not have yet are answered so"
    if groups:
        of = [f"of a {group}" for group in groups]
        text += f", and the lines {_or(of)} are not read"
    text += ": " + ", ".join(_keep_together(name) for name in commands)
    if settings:
        text += "; and " + ", ".join(_keep_together(name) for name in settings)
    return text + "."


def docs_table(registry: Registry) -> str:
    """The command table of docs/mail.md: each command this judge has, its usage, who
    may use it and what it does."""
    rows = ["| command | who | what it does |", "| --- | --- | --- |"]
    for command in registry:
        if not command.available:
            continue
        forms = " / ".join(
            f"`{_cell(usage)}`" for usage in (*command.help.usage, *command.help.master_usage)
        )
        what = _cell(command.help.description)
        rows.append(f"| {forms} | {command.help.audience.value} | {what} |")
    return "\n".join(rows) + "\n"


def _cell(text: str) -> str:
    """``text`` for a cell of a Markdown table: a bare ``|`` would end the cell, even
    inside a code span, so it is written ``\\|`` (shown as ``|``)."""
    return text.replace("|", "\\|")
