"""Reading a message's lines as commands, by the registry.

:func:`parse_commands` turns lines into :class:`~judge.commands.base.Command` values.
It only reads the command words: a line whose first words are no command's name (see
:mod:`judge.commands.registry`) is an ``ORDERS`` line, which the order intake reads with
the order language and reports as ignored if it is not an order.  A line that starts
with a command's name but is malformed (``SIGNON`` without a password, ``SET COLOUR
blue``) is an ``UNKNOWN`` command carrying an error that says what is wrong and what
would be right; so is a command of the njudge this judge does not have yet, and one that
owns the lines after it (``PRESS`` up to ``ENDPRESS``, ``PHASE`` up to the next
``PHASE``) keeps them in its ``body``, never read as orders.  Nothing after ``SIGNOFF``
is read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from judge.commands.base import Command, Line, MailCommand, Malformed, NotYet
from judge.commands.registry import REGISTRY, Registry
from judge.engine.notation import MAX_WORD_LENGTH

__all__ = ["MAX_COMMANDS", "MAX_WORD", "UNREAD", "parse_commands"]

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


def _unknown(text: str, number: int, error: str) -> Command:
    return Command("UNKNOWN", tuple(text.split()), text, number, error)


def _read(registry: Registry, line: Line) -> tuple[Command, MailCommand | None]:
    """``line`` as a command, with the registry's command that owns its block (``None``
    when it owns none); raises :class:`Malformed` for a line that starts with a command's
    name but is not a valid command (or holds a word longer than :data:`MAX_WORD`)."""
    # Counted in the words as written (before "SIGN ON" is read as one word).
    written = line.text.split()
    long_at = next((i for i, word in enumerate(written) if len(word) > MAX_WORD), None)
    try:
        command, owner, named = _command(registry, line)
    except Malformed:
        if long_at is None:
            raise
    else:
        block = owner.block is not None and owner.owns_block(named)
        if long_at is None or owner.long_words:
            # A line of orders: the order parser refuses the long word itself, naming it.
            # An address has its own limit, checked (and said) where it is used.
            return command, owner if block else None
        if block:
            # Refused, yet it still owns its lines (a press's text, an IF block's
            # orders): they are given back, never read as orders or commands.
            return replace(command, error=_long_word(written, long_at)), owner
    raise Malformed(_long_word(written, long_at))


def _long_word(written: Sequence[str], long_at: int) -> str:
    """The refusal of the line whose word ``long_at`` (0-based) is too long; named by
    its place, never quoted: the long word may be a password."""
    return (
        f"word {long_at + 1} of this line is {len(written[long_at]):,} characters "
        f"long; no command word, name or password is longer than {MAX_WORD} characters"
    )


def _command(registry: Registry, line: Line) -> tuple[Command, MailCommand, Line]:
    """The non-blank ``line`` as a command, the registry's command that read it and the
    line as that command saw it (see :func:`_read`); a command the judge does not have
    yet is an ``UNKNOWN`` command."""
    found = registry.find(line.keys)
    if found is None:
        stray = line.keys[0] in registry.strays
        if stray and (len(line.keys) == 1 or line.keys[0] in registry.inner):
            raise Malformed(registry.strays[line.keys[0]])
        family = registry.family(line.keys[0])
        if family is not None:
            known = registry.known(family)
            if len(line.words) == 1:
                raise Malformed(family.missing.format(known=known))
            raise Malformed(family.unknown.format(word=line.words[1], known=known))
        return _orders(registry, line), registry.catch_all, line
    owner, size = found
    named = line.named(size)
    try:
        command = owner.parse(named)
    except NotYet as exc:
        error = str(exc)
        family = registry.family(line.keys[0]) if size > 1 else None
        if family is not None:
            error += family.not_yet.format(known=registry.known(family))
        return _unknown(line.text, line.number, error), owner, named
    if command is None:
        return _orders(registry, line), registry.catch_all, line
    return command, owner, named


def _orders(registry: Registry, line: Line) -> Command:
    command = registry.catch_all.parse(line)
    assert command is not None
    return command


def _block(
    registry: Registry, owner: MailCommand, command: Command, items: list[str], start: int
) -> tuple[Command, int]:
    """The block ``command`` (of ``owner``) on line ``start`` (0-based) with the lines it
    owns, and the index of the first line after the block (its end line is the block's,
    except a ``SIGNOFF``, which is left to be read, and the command's next line)."""
    block = owner.block
    assert block is not None
    body: list[str] = []
    end: str | None = None
    index = start + 1
    # How many inner blocks are open (a block that nests); counted, never recursed into.
    depth = 0
    opener = tuple(owner.name.split())
    while index < len(items):
        line = registry.line(items[index], index + 1)
        keys = line.keys if line is not None else ()
        if len(keys) == 1 and keys[0] in block.ends:
            if depth:
                depth -= 1
                body.append(items[index])
                index += 1
                continue
            end = keys[0]
            index += 1
            break
        if block.nests and tuple(keys[: len(opener)]) == opener:
            depth += 1
            body.append(items[index])
            index += 1
            continue
        found = registry.find(keys) if line is not None else None
        if found is not None and found[0].ends_message and len(keys) == found[1]:
            end = found[0].name
            break
        if block.next_ends and found is not None and found[0] is owner:
            assert line is not None
            if _is_command(owner, line.named(found[1])):
                end = f"the next {owner.name}"
                break
        body.append(items[index])
        index += 1
    return owner.close_block(command, body, end), index


def _is_command(command: MailCommand, line: Line) -> bool:
    """Whether ``line`` is ``command`` (written right, or one this judge lacks)."""
    try:
        return command.parse(line) is not None
    except NotYet:
        return True
    except Malformed:
        return False


def _unmatched_ends(registry: Registry, owner: MailCommand, items: Sequence[str]) -> list[bool]:
    """For each line, whether an end line of ``owner``'s block (``ENDIF``) comes after it
    that no later line starting with ``owner``'s name claims: one pass from the end, the
    latest opener taking the nearest end line, as the blocks nest."""
    block = owner.block
    assert block is not None
    opener = tuple(owner.name.split())
    pending = 0
    out = [False] * len(items)
    for index in range(len(items) - 1, -1, -1):
        out[index] = pending > 0
        line = registry.line(items[index], index + 1)
        if line is None:
            continue
        if len(line.keys) == 1 and line.keys[0] in block.ends:
            pending += 1
        elif pending and tuple(line.keys[: len(opener)]) == opener:
            pending -= 1
    return out


def _ended_block(
    registry: Registry,
    line: Line,
    command: Command,
    index: int,
    items: Sequence[str],
    ends: dict[str, list[bool]],
) -> tuple[Command, MailCommand | None]:
    """A line a nesting block command (``IF``) took for prose, read as that command after
    all when an end line (``ENDIF``) later in the message is left for it: what the lines
    up to it say must never be taken as plain orders ("IF A(Tri)" ... "ENDIF" is a
    condition written wrong, refused with its block, not orders carried out without it).
    ``ends`` keeps each command's :func:`_unmatched_ends`, worked out once a message."""
    found = registry.find(line.keys)
    if found is None:
        return command, None
    owner, size = found
    block = owner.block
    if block is None or not block.nests or not owner.available:
        return command, None
    if owner.name not in ends:
        ends[owner.name] = _unmatched_ends(registry, owner, items)
    if not ends[owner.name][index]:
        return command, None
    named = line.named(size)
    return named.command(owner.name, named.args), owner


def parse_commands(
    lines: Sequence[str], registry: Registry = REGISTRY
) -> tuple[list[Command], list[str]]:
    """Read ``lines`` as commands: (commands in order, lines after ``SIGNOFF``).

    Blank lines are skipped; the ``SIGNOFF`` command is included and the non-blank lines
    after it are returned, as written, unread.  A block command (``PRESS`` ...
    ``ENDPRESS``) is one command holding its lines in ``body``: they are never read as
    orders or commands.  Never raises.

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
    # For each nesting block command, which lines an end line is left for (worked out
    # once, when first needed).
    ends: dict[str, list[bool]] = {}
    while index < len(items):
        text = items[index]
        if len(commands) >= MAX_COMMANDS and text.strip():
            rest = sum(1 for item in items[index + 1 :] if item.strip())
            after = "" if not rest else f" and the {rest:,} line{'s' if rest > 1 else ''} after it"
            # Not an error of the line: the reader stopped (see UNREAD).
            commands.append(Command(UNREAD, (), text, index + 1, (
                f"line {index + 1}{after}: at most {MAX_COMMANDS} commands and order lines "
                "are read from one message; send the rest in another message"
            )))  # fmt: skip
            return commands, []
        owner: MailCommand | None = None
        try:
            line = registry.line(text, index + 1)
            if line is None:
                index += 1
                continue
            command, owner = _read(registry, line)
            if owner is None and command.name == registry.catch_all.name:
                command, owner = _ended_block(registry, line, command, index, items, ends)
        except Malformed as exc:
            command = _unknown(text, index + 1, str(exc))
        except Exception as exc:  # a bug here must not lose the rest of the message
            command = Command("UNKNOWN", (), text, index + 1, f"could not read this line ({exc})")
        if owner is not None:
            command, index = _block(registry, owner, command, items, index)
            commands.append(command)
            continue
        index += 1
        commands.append(command)
        if command.error is None and registry.ends_message(command.name):
            return commands, [x for x in items[index:] if x.strip()]
    return commands, []
