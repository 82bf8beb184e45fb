"""The mail command language: every form with its exact Command value."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import ROOT

from judge.commands import COMMAND_NAMES, NJUDGE_COMMANDS, Command, parse_commands


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
        ("History Winter01 press", "HISTORY", ("winter01", "PRESS")),
        ("HISTORY winter01 PRESS s1901m", "HISTORY", ("winter01", "PRESS", "S1901M")),
        ("history winter01 press all", "HISTORY", ("winter01", "PRESS", "ALL")),
        ("SUMMARY", "SUMMARY", ()),
        ("summary WINTER01", "SUMMARY", ("winter01",)),
        ("MAP", "MAP", ()),
        ("map Winter01", "MAP", ("Winter01",)),
        ("MAP winter01 F1901M", "MAP", ("winter01", "F1901M")),
        ("Map winter01 Fall 1901 Movement", "MAP", ("winter01", "Fall", "1901", "Movement")),
        ("MAP Fall 1901", "MAP", ("Fall", "1901")),
        ("MAP winter01 N", "MAP", ("winter01", "N")),
        ("SET PASSWORD NewPass", "SET PASSWORD", ("NewPass",)),
        ("set password n3W.p@ss", "SET PASSWORD", ("n3W.p@ss",)),
        # The game master's forms (a player who writes two words is refused once signed on).
        ("SET PASSWORD England new-pass", "SET PASSWORD", ("England", "new-pass")),
        ("SET ADDRESS E <Ann@Example.org>", "SET ADDRESS", ("E", "ann@example.org")),
        ("EJECT england", "EJECT", ("england",)),
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
        ("SET DRAW", "SET DRAW", ()),
        ("set draw aef", "SET DRAW", ("Austria", "England", "France")),
        ("SET DRAW Austria, england F", "SET DRAW", ("Austria", "England", "France")),
        ("SET DRAW A and E", "SET DRAW", ("Austria", "England")),
        ("SET NO DRAW", "SET NODRAW", ()),
        ("set concede france", "SET CONCEDE", ("France",)),
        ("SET NO CONCEDE", "SET NOCONCEDE", ()),
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
        ("SET PASSWORD three words here", ["one word"]),
        ("EJECT", ["EJECT takes one power"]),
        ("SET ADDRESS not-an-address", ["SET ADDRESS me@example.org"]),
        ("SET ADDRESS a@b.org c@d.org", ["one email address"]),
        ("SET WAIT please", ["SET WAIT takes nothing after it"]),
        ("SET DEADLINE", ["needs the new date"]),
        ("SET NMR", ["SET NMR is a command of the njudge that this judge does not have yet"]),
        ("set no draw please", ["SET NODRAW takes nothing after it"]),
        ("SET DRAW A X", ["SET DRAW: 'X' names no power", "initials run together (AEF)"]),
        ("SET CONCEDE", ["SET CONCEDE takes the one power you concede the game to"]),
        ("SET CONCEDE F G", ["SET CONCEDE takes the one power", "'SET CONCEDE F'"]),
        ("LIST winter01 full", ["at most a game name", "LIST <game>"]),
        ("CLEAR everything", ["CLEAR takes nothing after it"]),
        ("GET package", ["GET is a command of the njudge that this judge does not have yet"]),
        ("i am also ann@example.org", ["IAMALSO is a command of the njudge"]),
        ("Force Begin", ["FORCE BEGIN is a command of the njudge"]),
        ("ENDIF", ["ENDIF belongs to an IF block (IF <condition> ... ELSE ... ENDIF), and no IF"]),
        ("End If", ["ENDIF belongs to an IF block"]),
        ("ELSE", ["ELSE belongs to an IF block"]),
        ("Else if A Mun then", ["ELSE belongs to an IF block"]),
        ("ELSEIF Bel owned", ["ELSEIF belongs to an IF block"]),
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


@pytest.mark.parametrize(
    "line",
    [
        "Get Outlook for iOS",
        "Press the green button",
        "Send me a postcard, please",
        "Who is playing Turkey?",
        "Register now",
        "Phase two of the plan",
        "Map of the north",
        "Map out the plan with Turkey",
        "Version 2 of the plan follows",
    ],
)
def test_prose_starting_with_an_njudge_word_is_not_a_command(line: str) -> None:
    # Outlook's "Get Outlook for iOS" signature must not flag every message as an error.
    assert one(line) == Command("ORDERS", (line.strip(),), line, 1)


def test_every_njudge_command_word_gets_the_same_answer() -> None:
    examples = {
        "CREATE": "CREATE ?new pw",
        "DIARY": "DIARY LIST",
        "FORCE BEGIN": "FORCE BEGIN", "GET": "GET info",
        "IAMALSO": "IAMALSO ann@example.org", "INFO PLAYER": "INFO PLAYER ann@example.org",
        "PROMOTE": "PROMOTE ann@example.org", "REGISTER": "REGISTER",
        "SEND": "SEND ME info",
        "UNSTART": "UNSTART", "VERSION": "VERSION",
        "WHOGAME": "WHO GAME winter01", "WHOIS": "WHOIS ann", "WITHDRAW": "WITHDRAW",
    }  # fmt: skip
    assert set(examples) == set(NJUDGE_COMMANDS)
    for word, line in examples.items():
        commands, unread = parse_commands([line])
        [command] = commands
        assert (command.name, unread) == ("UNKNOWN", [])
        assert command.error is not None
        assert command.error.startswith(
            f"{word} is a command of the njudge that this judge does not have yet"
        ), line
    # The press commands are this judge's own now.
    for line, name in [("BROADCAST", "BROADCAST"), ("POSTAL PRESS", "POSTALPRESS"),
                       ("PRESS TO F", "PRESS")]:  # fmt: skip
        [command], _unread = parse_commands([line])
        assert (command.name, command.error) == (name, None)


def test_observe_and_watch_are_read_and_prose_that_starts_so_is_not() -> None:
    assert one("Observe Winter01 Look-On") == Command(
        "OBSERVE", ("winter01", "Look-On"), "Observe Winter01 Look-On", 1
    )
    assert one("WATCH winter01") == Command("WATCH", ("winter01",), "WATCH winter01", 1)
    assert one("Watch out for Russia") == Command(
        "ORDERS", ("Watch out for Russia",), "Watch out for Russia", 1
    )
    assert one("OBSERVE").error == (
        "OBSERVE needs the game: write 'OBSERVE <game>', or 'OBSERVE <game> <password>' "
        "for a game that asks observers for one"
    )


def test_press_body_is_never_read_as_orders() -> None:
    lines = ["SIGNON Fwinter01 secret", "A Par H", "PRESS TO E", "A Bur-Par", "",
             "SET WAIT", "ENDPRESS", "F Bre-MAO"]  # fmt: skip
    commands, unread = parse_commands(lines)
    assert [(c.name, c.number) for c in commands] == [
        ("SIGNON", 1),
        ("ORDERS", 2),
        ("PRESS", 3),
        ("ORDERS", 8),
    ]
    press = commands[2]
    assert (press.args, press.body, press.end) == (("TO", "E"), ("A Bur-Par", "", "SET WAIT"),
                                                   "ENDPRESS")  # fmt: skip
    assert press.error is None
    assert unread == []


def test_press_ends_at_end_broadcast_or_signoff_alone_on_a_line() -> None:
    commands, unread = parse_commands(
        ["BROADCAST", "endpress now, please", "End Broadcast", "A Par H",
         "press to g", "hi", "signoff", "A Mar H"]
    )  # fmt: skip
    assert [(c.name, c.body, c.end) for c in commands] == [
        ("BROADCAST", ("endpress now, please",), "ENDBROADCAST"),
        ("ORDERS", (), None),
        ("PRESS", ("hi",), "SIGNOFF"),
        ("SIGNOFF", (), None),
    ]
    assert unread == ["A Mar H"]


def test_press_without_an_end_swallows_the_rest_and_says_so() -> None:
    commands, _unread = parse_commands(["PRESS TO F", "A Bur-Par", "cheers", "Ann"])
    [press] = commands
    assert press.body == ("A Bur-Par", "cheers", "Ann")
    # No end line: the press runs to the end of the message (its confirmation says so).
    assert (press.end, press.error) == (None, None)


def test_phase_opens_a_section_and_its_orders_are_read_as_lines_of_their_own() -> None:
    # PHASE is no block: the lines after it are commands and orders as usual (the
    # conversation keeps the section); prose that starts with "Phase" is not PHASE.
    commands, _unread = parse_commands(
        ["A Par H", "PHASE Fall 1901 Movement", "A Par-Bur", "LIST", "phase S1902M",
         "END PHASE", "PHASE W1901B", "Phase two of our plan", "PHASE"]
    )  # fmt: skip
    assert [(c.name, c.number, c.args, c.body) for c in commands] == [
        ("ORDERS", 1, ("A Par H",), ()),
        ("PHASE", 2, ("Fall", "1901", "Movement"), ()),
        ("ORDERS", 3, ("A Par-Bur",), ()),
        ("LIST", 4, (), ()),
        ("PHASE", 5, ("S1902M",), ()),
        ("ENDPHASE", 6, (), ()),
        ("PHASE", 7, ("W1901B",), ()),
        ("ORDERS", 8, ("Phase two of our plan",), ()),
        ("PHASE", 9, (), ()),
    ]


def test_if_owns_its_lines_up_to_the_endif_that_closes_it() -> None:
    commands, _unread = parse_commands(
        ["IF A Mun", "if Bel owned", "A Mun-Bur", "END IF", "ELSE", "A Mun-Ruh", "ENDIF",
         "A Par H", "If you agree, write back", "IF A Mnu", "A Mun H"]
    )  # fmt: skip
    assert [(c.name, c.number, c.body, c.end) for c in commands] == [
        ("IF", 1, ("if Bel owned", "A Mun-Bur", "END IF", "ELSE", "A Mun-Ruh"), "ENDIF"),
        ("ORDERS", 8, (), None),
        ("ORDERS", 9, (), None),
        # A mistyped place after A: still an IF (refused when processed), never prose.
        ("IF", 10, ("A Mun H",), None),
    ]


def test_spaced_sign_on_and_sign_off() -> None:
    commands, unread = parse_commands(["SIGN ON F winter01 pw", "Sign off the deal", "Sign Off",
                                       "A Par H"])  # fmt: skip
    assert [(c.name, c.args) for c in commands] == [
        ("SIGNON", ("F", "winter01", "pw")),
        ("ORDERS", ("Sign off the deal",)),
        ("SIGNOFF", ()),
    ]
    assert unread == ["A Par H"]


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
                [
                    "SIGNON",
                    "SET",
                    "SET DEADLINE",
                    "SIGNOFF",
                    "LIST",
                    "signon F@",
                    "set no",
                    "PRESS",
                    "PHASE F1901M",
                    "IF A Mun",
                    "ELSE",
                    "ENDIF",
                    "ENDPRESS",
                    "SIGN OFF",
                    "i am also",
                ]
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


def test_help_and_the_mail_guide_list_every_njudge_command_this_judge_lacks() -> None:

    from judge.commands import HELP_TEXT, NJUDGE_SETTINGS

    guide = (ROOT / "docs" / "mail.md").read_text(encoding="utf-8")
    flat_help = " ".join(HELP_TEXT.split())
    flat_guide = " ".join(guide.split())
    for word in [*NJUDGE_COMMANDS, *(f"SET {w}" for w in NJUDGE_SETTINGS)]:
        assert f" {word}," in flat_help or f" {word};" in flat_help or f" {word}." in flat_help
        assert f"`{word}`" in flat_guide, word


def test_a_command_line_of_long_blank_runs_is_read_in_linear_time() -> None:
    # "SET ABSENCE a" + 10,000 blanks + "b" took 1.5 s to read (the split at " to " was
    # retried at every blank), 200 such lines five minutes: one message held a worker.
    # So did an address of 10,000 characters full of dots with a second "@" at its end
    # (the address pattern tried every dot as the domain's).
    import time

    def seconds(size: int) -> float:
        blanks = " " * size
        dots = "x." * (size // 2)
        lines = [
            f"SET ABSENCE a{blanks}b",
            f"SET DEADLINE a{blanks}b",
            f"SET ADDRESS a@{dots}@",
            f"SET ADDRESS <a@{dots}>,",
        ] * 5
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            parse_commands(lines)
            best = min(best, time.perf_counter() - start)
        return best

    small, large = seconds(2000), seconds(8000)
    assert large <= 1.5, (small, large)
    # Linear costs about 4x at 4n; quadratic 16x.  The floor absorbs timer noise.
    assert large <= max(9 * small, 0.05), (small, large)
