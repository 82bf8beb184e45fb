"""The registry of mail commands is the one list: the parser reads by it, HELP and the
command table of docs/mail.md are made from it, and a command added to it (one module)
shows everywhere, with no other list to edit."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from support import ROOT
from support.servicekit import started_game

from judge.commands import COMMAND_NAMES, HELP_TEXT, REGISTRY, Command, Registry, parse_commands
from judge.commands.base import Audience, Block, Help, Line, MailCommand, Malformed
from judge.commands.registry import COMMANDS, FAMILIES
from judge.mail.decode import decode
from judge.services.conversation import Conversation
from judge.services.unit_of_work import UnitOfWork

if TYPE_CHECKING:
    from judge.services.conversation import Conversation as ConversationType

# HELP's answer as it was written by hand before the registry made it; only the order of
# the block commands in the last paragraph follows the registry now.
EXPECTED_HELP = """\
Send commands in the body of an email, one per line:
  SIGNON <power initial><game> <password>   e.g. SIGNON Fwinter01 secret
  (or SIGNON france@winter01 secret), then your orders, one or more per line:
    A Par-Bur        F Bre-MAO        A Mar S A Par-Bur     F NTH C A Lon-Nwy
    A Par H (hold: a unit or a place alone is not an order)
    F Tri-Alb / F Tri D (retreats)    Build A Par / Remove F Tri / Waive
  Orders can be sent again until the deadline; the last order for a unit counts.
  CLEAR drops your orders for this phase.
  SIGNOFF ends the message (nothing after it is read).
Other commands: PHASE <season> <year> [<kind>], PHASE <code>, ENDPHASE,
IF <condition> [THEN] ... [ELSE IF <condition> ...] [ELSE ...] ENDIF, RETREATS, BUILDS,
ADJUSTMENTS, REMOVALS, LIST [game], HELP, HISTORY [game],
HISTORY <game> PRESS [<phase> | ALL], SUMMARY [game], MAP [game] [phase],
SET PASSWORD <new>, SET ADDRESS [<address>], SET WAIT, SET NOWAIT, SET TIMEZONE <zone>,
SET ABSENCE <from> TO <to>, SET NOABSENCE, SET DRAW, SET DRAW <powers>, SET NODRAW,
SET CONCEDE <power>, SET NOCONCEDE, RESIGN, OBSERVE <game> [<password>],
SIGNON O<game> <password>, WATCH <game> [<password>],
PRESS TO <powers> [WHITE|GREY] [FAKE AS <power>] ... ENDPRESS,
PRESS TO ALL BUT <powers> ... ENDPRESS,
PRESS PUBLISH [IF <order> SUCCEEDS|FAILS] ... ENDPRESS, BROADCAST ... ENDPRESS,
POSTALPRESS ... ENDPRESS, PROPOSE DRAW|CONCEDE|RESULT <terms> ... ENDPROPOSE,
VOTE <n> YES|NO|ABSTAIN.
Game masters: SIGNON M<game> <password>, then PROCESS, PAUSE, RESUME,
SET DEADLINE <YYYY-MM-DD HH:MM>, SET GRACE <hours>, SET PRESS <kind>, SET WHITE,
SET GREY, SET NOPRESS, SET PARTIAL, SET NOPARTIAL, BECOME <power>, PREVIEW,
ROLLBACK [<phase>] [<reason>], ACCEPT <n>, DECLINE <n>, TERMINATE, EJECT <power>,
SET PASSWORD <power> <new>, SET ADDRESS <power> <address>.
Commands of the njudge that this judge does not have yet are answered so, and
the lines of a DIARY (up to ENDPRESS) or of a REGISTER (up to END) are not read:
CREATE, DIARY, FORCE BEGIN, GET, IAMALSO, INFO PLAYER, PROMOTE, REGISTER, SEND,
UNSTART, VERSION, WHOGAME, WHOIS, WITHDRAW; and SET ACCESS, SET MODERATE,
SET NMR, SET NONMR, SET PREFERENCE, SET VARIANT."""


def _docs_table() -> str:
    """The command table of docs/mail.md, as written there."""
    lines = (ROOT / "docs" / "mail.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("| command | who | what it does |")
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return "\n".join(lines[start:end]) + "\n"


def _cell(text: str) -> str:
    """``text`` as a cell of the docs table writes it (a bar escaped)."""
    return text.replace("|", "\\|")


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_help_is_made_from_the_registry() -> None:
    assert HELP_TEXT == REGISTRY.help_text == EXPECTED_HELP


def test_the_docs_table_is_the_registry() -> None:
    # Before the registry, the table lacked PROCESS, PAUSE, RESUME and SET DEADLINE (the
    # game master's, in a paragraph under it) and the ORDERS line.
    assert _docs_table() == REGISTRY.docs_table


def test_a_bar_in_a_usage_is_escaped_in_the_docs_table() -> None:
    # A bare "|" inside a cell (even in a code span) starts a new cell in Markdown: the
    # row of PRESS had five cells, its "what it does" in the wrong column.
    for row in REGISTRY.docs_table.splitlines():
        cells = re.split(r"(?<!\\)\|", row)
        assert len(cells) == 5, row
    assert (
        "| `PRESS TO <powers> [WHITE\\|GREY] [FAKE AS <power>] ... ENDPRESS` / "
        "`PRESS TO ALL BUT <powers> ... ENDPRESS` / "
        "`PRESS PUBLISH [IF <order> SUCCEEDS\\|FAILS] ... ENDPRESS` | anyone |"
    ) in REGISTRY.docs_table


def test_every_command_has_its_help_and_shows_in_help_and_the_docs() -> None:
    table = _docs_table()
    flat_help = _flat(HELP_TEXT)
    names = [command.name for command in REGISTRY]
    assert len(names) == len(set(names))
    for command in REGISTRY:
        assert command.help.usage and all(usage.strip() for usage in command.help.usage)
        assert command.help.description.strip()
        assert isinstance(command.help.audience, Audience)
        if not command.available:
            # The njudge's commands this judge lacks: named in HELP, never in the table.
            assert f" {command.name}" in flat_help
            assert f"| `{command.name}` |" not in table
            continue
        assert command.name in COMMAND_NAMES
        # HELP opens with the guide of the commands every player needs, and lists the
        # others by their usage.
        shown = [command.help.guide] if command.help.guide else list(command.help.usage)
        for text in (*shown, *command.help.master_usage):
            assert _flat(text) in flat_help, text
        for usage in (*command.help.usage, *command.help.master_usage):
            assert f"`{_cell(usage)}`" in table, usage
        assert f"| {command.help.audience.value} | {_cell(command.help.description)} |" in table


class Wave(MailCommand):
    """A command a later issue might add: one module, one line in the registry."""

    name = "WAVE"
    help = Help(usage=("WAVE [power]",), description="wave to a power", audience=Audience.ANYONE)

    def parse(self, line: Line) -> Command:
        if len(line.args) > 1:
            raise Malformed("WAVE takes at most a power: write 'WAVE' or 'WAVE <power>'")
        return line.command(self.name, [word.lower() for word in line.args])

    def process(self, conversation: ConversationType, command: Command) -> None:
        whom = command.args[0] if command.args else "everyone"
        conversation.reply.paragraphs.append(f"You wave to {whom}.")


class Note(MailCommand):
    """A command that owns the lines after it, up to ENDNOTE."""

    name = "NOTE"
    spellings = ("MEMO NOTE",)
    block = Block(("ENDNOTE",), spellings=("END NOTE",))
    help = Help(usage=("NOTE ... ENDNOTE",), description="a note", audience=Audience.PLAYER)

    def process(self, conversation: ConversationType, command: Command) -> None:
        conversation.reply.paragraphs.append(f"Noted {len(command.body)} lines.")


class Kick(MailCommand):
    """A game master's command."""

    name = "KICK"
    help = Help(usage=("KICK <power>",), description="kick a power", audience=Audience.MASTER)

    def process(self, conversation: ConversationType, command: Command) -> None:
        game = conversation.master()
        conversation.reply.actions.append(f"Kicked in {game.name}.")


class SetColour(MailCommand):
    """A new member of the SET family."""

    name = "SET COLOUR"
    help = Help(usage=("SET COLOUR <colour>",), description="a colour", audience=Audience.PLAYER)


def _with_new_commands() -> Registry:
    # Where a module's line goes in the list is where it shows in HELP and the docs.
    at = COMMANDS.index(next(c for c in COMMANDS if c.name == "RESIGN"))
    new = (Wave(), Note(), SetColour())
    return Registry((*COMMANDS[:at], *new, *COMMANDS[at:], Kick()), FAMILIES)


def test_a_command_added_to_the_registry_shows_in_help_the_docs_and_the_parser() -> None:
    registry = _with_new_commands()
    # HELP lists it by its usage, among the others or the game master's.
    assert "SET NOCONCEDE, WAVE [power], NOTE ... ENDNOTE, SET COLOUR <colour>, RESIGN," in (
        _flat(registry.help_text)
    )
    # The game master's forms of the players' commands come after the game master's own.
    assert (
        "TERMINATE, EJECT <power>, KICK <power>, "
        "SET PASSWORD <power> <new>, SET ADDRESS <power> <address>."
    ) in _flat(registry.help_text)
    # The docs table gets its row, in the registry's place.
    rows = registry.docs_table.splitlines()
    assert rows[rows.index("| `SET NOCONCEDE` | player | withdraw your concession |") + 1] == (
        "| `WAVE [power]` | anyone | wave to a power |"
    )
    assert rows[-1] == "| `KICK <power>` | game master | kick a power |"
    # The parser reads it (the judge's own registry does not know it: an ORDERS line).
    commands, _ = parse_commands(["wave France", "WAVE a b", "KICK"], registry)
    assert commands == [
        Command("WAVE", ("france",), "wave France", 1),
        Command(
            "UNKNOWN", ("WAVE", "a", "b"), "WAVE a b", 2,
            "WAVE takes at most a power: write 'WAVE' or 'WAVE <power>'",
        ),
        Command("KICK", (), "KICK", 3),
    ]  # fmt: skip
    assert parse_commands(["wave France"])[0] == [
        Command("ORDERS", ("wave France",), "wave France", 1)
    ]
    # A new member of a family is among the settings the family's errors name.
    (unknown,), _ = parse_commands(["SET FOO"], registry)
    assert unknown.error == (
        "SET FOO is not a setting this judge knows; it knows SET PASSWORD, SET ADDRESS, "
        "SET WAIT, SET NOWAIT, SET TIMEZONE, SET ABSENCE, SET NOABSENCE, SET DRAW, "
        "SET NODRAW, SET CONCEDE, SET NOCONCEDE, SET COLOUR, SET DEADLINE, SET GRACE, "
        "SET PRESS, SET WHITE, SET GREY, SET NOPRESS, SET PARTIAL and SET NOPARTIAL"
    )


def test_a_block_command_gets_its_lines_as_its_body_never_as_orders() -> None:
    registry = _with_new_commands()
    lines = ["A Par H", "NOTE", "A Bur-Par", "", "SET WAIT", "END NOTE", "F Bre-MAO",
             "memo note", "A Mar H", "SIGN OFF", "ignored"]  # fmt: skip
    commands, unread = parse_commands(lines, registry)
    assert [(c.name, c.args, c.number, c.body) for c in commands] == [
        ("ORDERS", ("A Par H",), 1, ()),
        ("NOTE", (), 2, ("A Bur-Par", "", "SET WAIT")),
        ("ORDERS", ("F Bre-MAO",), 7, ()),
        # A SIGNOFF ends the block and the message.
        ("NOTE", (), 8, ("A Mar H",)),
        ("SIGNOFF", (), 10, ()),
    ]
    assert unread == ["ignored"]


def test_a_conversation_runs_the_commands_of_its_registry(tmp_path: Path) -> None:
    app, _table = started_game(tmp_path)
    registry = _with_new_commands()
    mail = decode(b"From: ann@example.net\r\nSubject: hi\r\n\r\nWAVE\r\n")
    lines = ["WAVE england", "NOTE", "A Par-Bur", "ENDNOTE", "KICK", "HELP"]
    with app.sessions() as session:
        now = datetime(2026, 11, 23, 13, 0, tzinfo=UTC)
        conversation = Conversation(session, app.judge, mail, now, UnitOfWork(), None, registry)
        for command in parse_commands(lines, registry)[0]:
            conversation.run(command)
    reply = conversation.reply
    assert reply.paragraphs == ["You wave to england.", "Noted 1 lines.", registry.help_text]
    # A game master's command refused to a stranger, with the reason.
    assert reply.rejected == [
        {
            "line": "KICK",
            "reason": "only the game master can do this: SIGNON M<game> <password> first",
        }
    ]


def test_the_docs_list_of_commands_not_yet_had_is_the_registrys() -> None:
    # docs/mail.md names the njudge's commands this judge lacks in prose: every one of
    # them, and none the judge has (the list named PRESS long after PRESS worked).
    text = (ROOT / "docs" / "mail.md").read_text(encoding="utf-8")
    start = text.index("The judge does not have every command of the njudge yet.")
    paragraph = text[start : text.index("A\ncommand that owns the lines after it", start)]
    named = set(re.findall(r"`([A-Z][A-Z ]*[A-Z])`", paragraph))
    lacking = {command.name for command in REGISTRY.not_yet}
    assert lacking <= named, lacking - named
    assert not named & set(REGISTRY.names), named & set(REGISTRY.names)
