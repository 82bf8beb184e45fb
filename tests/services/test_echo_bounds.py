"""What a reply quotes from the message is bounded (issue 11, item 9): junk sent from a
forged address comes back to that address as a short excerpt, never at full size.

Every list a reply quotes (lines not read, lines refused, what was left out of the
message) shows at most ``MAX_QUOTED_LINES`` entries of at most ``MAX_QUOTED_CHARS``
characters each, and says how much more was left out; the subject is echoed up to
``MAX_SUBJECT_ECHO`` characters.  Ordinary replies are unchanged (their golden files).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from support.servicekit import Table, started_game

from judge.commands import MAX_COMMANDS
from judge.runtime.bootstrap import App
from judge.services.replies import MAX_QUOTED_CHARS, MAX_QUOTED_LINES, MAX_SUBJECT_ECHO

WORDS = ("lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit")


@pytest.fixture
def game(tmp_path: Path) -> tuple[App, Table]:
    return started_game(tmp_path)


def junk(size: int, words_per_line: int, seed: int = 1) -> str:
    """About ``size`` bytes of lines of words that are no orders."""
    rng = random.Random(seed)
    lines: list[str] = []
    total = 0
    while total < size:
        line = " ".join(rng.choice(WORDS) for _ in range(words_per_line))
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines) + "\n"


def test_the_limits() -> None:
    assert (MAX_QUOTED_LINES, MAX_QUOTED_CHARS, MAX_SUBJECT_ECHO) == (20, 200, 200)


def test_892_kb_of_junk_gets_a_short_reply(game: tuple[App, Table]) -> None:
    # The report: an 892 kB mail from a forged address got a 923 kB reply.
    _app, table = game
    body = junk(892_000, 600)
    lines = body.splitlines()
    assert len(body) >= 892_000
    table.send("victim@example.net", body, "2026-11-23 13:00", subject="x" * 1000)
    (reply,) = table.new_mail()
    assert reply.to_addr == "victim@example.net"
    assert len(reply.body.encode()) < 6000
    assert len(reply.subject) == len("Re: ") + MAX_SUBJECT_ECHO + len("...")
    assert reply.subject == "Re: " + "x" * MAX_SUBJECT_ECHO + "..."
    first = lines[0]
    cut = f"> {first[:MAX_QUOTED_CHARS]}... ({len(first) - MAX_QUOTED_CHARS:,} more characters)"
    assert cut in reply.body
    # The first MAX_COMMANDS lines are read (and refused as no orders), the rest not.
    assert len(lines) > MAX_COMMANDS
    assert (
        f"({MAX_COMMANDS - MAX_QUOTED_LINES:,} more lines not read as orders or commands are "
        "left out of this reply.)"
    ) in reply.body
    rest = len(lines) - MAX_COMMANDS - 1
    assert (
        f"  - line {MAX_COMMANDS + 1} and the {rest} lines after it: at most {MAX_COMMANDS} "
        "commands and order lines\n    are read from one message"
    ) in reply.body
    assert lines[MAX_QUOTED_LINES][:MAX_QUOTED_CHARS] not in reply.body


def test_many_short_junk_lines_are_cut_to_an_excerpt(game: tuple[App, Table]) -> None:
    _app, table = game
    body = "\n".join(f"just some chatter number {n}" for n in range(300)) + "\n"
    table.send("victim@example.net", body, "2026-11-23 13:00", subject="hi")
    (reply,) = table.new_mail()
    assert reply.body == (
        "This judge found no commands or orders in your message.\n\n"
        "These lines were not read as orders or commands:\n"
        + "".join(f"> just some chatter number {n}\n" for n in range(MAX_QUOTED_LINES))
        + f"({MAX_COMMANDS - MAX_QUOTED_LINES:,} more lines not read as orders or commands "
        "are left out of this reply.)\n\n"
        "Not read from your message:\n"
        "  - line 201 and the 99 lines after it: at most 200 commands and order lines\n"
        "    are read from one message; send the rest in another message\n\n"
        "Write your commands and orders in the body of the message itself, as plain\n"
        "text, one per line. Send HELP for how to use this judge.\n\n"
        "TESTJUDGE\n"
    )


def test_refused_lines_and_reasons_are_bounded(game: tuple[App, Table]) -> None:
    # Unknown commands: each refusal quotes the line and a reason naming its first word.
    _app, table = game
    word = "Q" * 5000
    body = "".join(f"SET {word}{n}\n" for n in range(50))
    table.send("victim@example.net", body, "2026-11-23 13:00")
    (reply,) = table.new_mail()
    assert reply.subject == "[Error Flag] Re: orders"
    assert len(reply.body.encode()) < 16_000
    assert reply.body.count("> SET QQQ") == MAX_QUOTED_LINES
    assert (
        f"({50 - MAX_QUOTED_LINES} more refused lines are left out of this reply.)"
    ) in reply.body


def test_a_command_repeated_is_answered_once(game: tuple[App, Table]) -> None:
    # Five bytes of HELP gave three kilobytes of answer, as often as it was written.
    _app, table = game
    table.send("victim@example.net", "HELP\n" * 500, "2026-11-23 13:00")
    (reply,) = table.new_mail()
    assert reply.body.count("Send commands in the body of an email") == 1
    assert len(reply.body.encode()) < 6000


def test_a_signed_confirmation_bounds_its_lists_too(game: tuple[App, Table]) -> None:
    _app, table = game
    # Both lists longer than a reply quotes, all within the lines a message may hold.
    bad = [f"A Lon-{'Z' * 60}{n}" for n in range(100)]
    chatter = [f"chatter {n} " + "y" * 400 for n in range(90)]
    assert len(bad) + len(chatter) + 2 <= MAX_COMMANDS
    table.send(
        "england@example.org",
        "SIGNON Etest01 pw-eng\nF Lon-NTH\n" + "\n".join(bad + chatter) + "\n",
        "2026-11-23 13:00",
    )
    (confirm,) = table.new_mail()
    assert confirm.kind == "confirm"
    assert "England: Fleet London -> North Sea." in confirm.body
    assert len(confirm.body.encode()) < 20_000
    assert "100 errors in this message." in confirm.body
    assert confirm.body.count("  A Lon-ZZZ") == MAX_QUOTED_LINES
    assert confirm.body.count("  chatter ") == MAX_QUOTED_LINES
    assert "(80 more refused lines are left out of this reply.)" in confirm.body
    assert (
        "(70 more lines not read as orders or commands are left out of this reply.)"
    ) in confirm.body
