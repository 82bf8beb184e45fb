"""The mail command language: every form with its exact Command value."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.commands import COMMAND_NAMES, Command, parse_commands


def one(line: str) -> Command:
    """The single command read from ``line``."""
    commands, unread = parse_commands([line])
    assert unread == []
    assert len(commands) == 1
    return commands[0]


@pytest.mark.parametrize(
    ("line", "args"),
    [
        ("SIGNON Fwinter01 secret", ("F", "winter01", "secret")),
        ("signon fWinter01 SeCreT", ("F", "winter01", "SeCreT")),
        ("SIGNON france@winter01 secret", ("france", "winter01", "secret")),
        ("signon France@WINTER01 Pa55", ("france", "winter01", "Pa55")),
        ("SIGNON Mwinter01 gmpass", ("M", "winter01", "gmpass")),
        ("  SIGNON   F winter01   secret  ", ("F", "winter01", "secret")),
        ("SignOn Egame_2-b x", ("E", "game_2-b", "x")),
    ],
)
def test_signon(line: str, args: tuple[str, str, str]) -> None:
    assert one(line) == Command("SIGNON", args, line, 1)


@pytest.mark.parametrize(
    ("line", "words_in_error"),
    [
        ("SIGNON", ["needs your power, the game and its password", "SIGNON Fwinter01 secret"]),
        ("SIGNON Fwinter01", ["missing the password", "SIGNON Fwinter01 <password>"]),
        ("signon Fwinter01 my secret", ["one word", "'secret' is more than that"]),
        ("SIGNON F secret", ["names no game"]),
        ("SIGNON 1winter01 secret", ["initial of your power"]),
        ("SIGNON Fwin/ter secret", ["'win/ter' is not a game name"]),
        ("SIGNON @winter01 secret", ["'' is not a power name"]),
        ("SIGNON france@ secret", ["names no game"]),
    ],
)
def test_malformed_signon(line: str, words_in_error: list[str]) -> None:
    command = one(line)
    assert command.name == "UNKNOWN"
    assert command.line == line
    assert command.args == tuple(line.split())
    assert command.error is not None
    for words in words_in_error:
        assert words in command.error


@pytest.mark.parametrize(
    ("line", "name", "args"),
    [
        ("LIST", "LIST", ()),
        ("list Winter01", "LIST", ("winter01",)),
        ("HELP", "HELP", ()),
        ("help", "HELP", ()),
        ("HISTORY", "HISTORY", ()),
        ("History winter01", "HISTORY", ("winter01",)),
        ("SUMMARY", "SUMMARY", ()),
        ("summary WINTER01", "SUMMARY", ("winter01",)),
        ("SET PASSWORD NewPass", "SET PASSWORD", ("NewPass",)),
        ("set password n3W.p@ss", "SET PASSWORD", ("n3W.p@ss",)),
        ("SET ADDRESS", "SET ADDRESS", ()),
        ("set address Ann@Example.ORG", "SET ADDRESS", ("ann@example.org",)),
        ("SET ADDRESS <ann@example.org>", "SET ADDRESS", ("ann@example.org",)),
        ("SET WAIT", "SET WAIT", ()),
        ("set nowait", "SET NOWAIT", ()),
        ("SET NO WAIT", "SET NOWAIT", ()),
        ("RESIGN", "RESIGN", ()),
        ("clear", "CLEAR", ()),
        ("PROCESS", "PROCESS", ()),
        ("Pause", "PAUSE", ()),
        ("RESUME", "RESUME", ()),
        ("SIGNOFF", "SIGNOFF", ()),
        ("signoff.", "SIGNOFF", ()),
        (
            "SET DEADLINE  Tue Mar 5 2024 20:00 +0100",
            "SET DEADLINE",
            ("Tue Mar 5 2024 20:00 +0100",),
        ),
        ("set deadline tomorrow", "SET DEADLINE", ("tomorrow",)),
    ],
)
def test_commands(line: str, name: str, args: tuple[str, ...]) -> None:
    assert one(line) == Command(name, args, line, 1)


@pytest.mark.parametrize(
    ("line", "words_in_error"),
    [
        ("SET COLOUR blue", ["SET COLOUR is not a setting", "SET PASSWORD"]),
        ("SET", ["SET needs a setting"]),
        ("SET PASSWORD", ["needs the new password", "SET PASSWORD <new password>"]),
        ("SET PASSWORD two words", ["one word"]),
        ("SET ADDRESS not-an-address", ["SET ADDRESS me@example.org"]),
        ("SET ADDRESS a@b.org c@d.org", ["one email address"]),
        ("SET WAIT please", ["SET WAIT takes nothing after it"]),
        ("SET DEADLINE", ["needs the new date"]),
        ("SET DRAW", ["SET DRAW is not supported"]),
        ("LIST winter01 full", ["at most a game name", "LIST <game>"]),
        ("CLEAR everything", ["CLEAR takes nothing after it"]),
        ("PRESS TO all", ["PRESS is not supported"]),
    ],
)
def test_malformed_commands(line: str, words_in_error: list[str]) -> None:
    command = one(line)
    assert command.name == "UNKNOWN"
    assert command.error is not None
    for words in words_in_error:
        assert words in command.error


@pytest.mark.parametrize(
    "line",
    [
        "A Par-Bur",
        "England:",
        "England: F Lon-Nth, A Lvp-Yor",
        "Sent from my iPhone",
        "(ENG FLT LON) MTO NTH",
        "Thanks!",
    ],
)
def test_other_lines_are_orders(line: str) -> None:
    assert one(line) == Command("ORDERS", (line.strip(),), line, 1)


def test_whole_message_with_line_numbers_and_signoff() -> None:
    lines = [
        "SIGNON Fwinter01 secret",
        "",
        "  A Par-Bur ",
        "SET WAIT",
        "SIGNOFF",
        "",
        "-- ",
        "A Mar-Spa",
    ]
    commands, unread = parse_commands(lines)
    assert commands == [
        Command("SIGNON", ("F", "winter01", "secret"), "SIGNON Fwinter01 secret", 1),
        Command("ORDERS", ("A Par-Bur",), "  A Par-Bur ", 3),
        Command("SET WAIT", (), "SET WAIT", 4),
        Command("SIGNOFF", (), "SIGNOFF", 5),
    ]
    assert unread == ["-- ", "A Mar-Spa"]


def test_blank_and_empty_input() -> None:
    assert parse_commands([]) == ([], [])
    assert parse_commands(["", "   ", "\t"]) == ([], [])


def test_text_passed_instead_of_lines() -> None:
    commands, _ = parse_commands("LIST\nHELP")
    assert [c.name for c in commands] == ["LIST", "HELP"]


def test_non_ascii_words_are_not_commands() -> None:
    # LATIN SMALL LETTER LONG S upper-cases to 'S': "\u017fet" must not read as SET.
    assert one("\u017fet wait").name == "ORDERS"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            st.text(max_size=60),
            st.sampled_from(
                ["SIGNON", "SET", "SET DEADLINE", "SIGNOFF", "LIST", "signon F@", "set no"]
            ).flatmap(lambda w: st.text(max_size=30).map(lambda t: f"{w} {t}")),
        ),
        max_size=20,
    )
)
def test_parse_commands_never_raises(lines: list[str]) -> None:
    commands, unread = parse_commands(lines)
    assert all(line.strip() for line in unread)
    for command in commands:
        assert command.name in COMMAND_NAMES
        assert (command.error is not None) == (command.name == "UNKNOWN")
        assert 1 <= command.number <= len(lines)
        assert lines[command.number - 1] == command.line
