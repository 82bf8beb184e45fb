"""Every parser of player and mail text takes time in proportion to its input.

Each test times a parser at a size ``n`` and at ``4 * n`` (the least of three runs, so a
busy machine slows both alike) and checks that the larger input costs at most about four
times as much: a quadratic parser costs sixteen times as much.  The sizes are chosen so
that the quadratic versions these tests were written against took seconds at ``4 * n``
while the linear ones take milliseconds; the margins are wide enough for a loaded CI
machine.  Hypothesis varies what is repeated, so runs of any character class are tried,
not only the ones a reviewer thought of.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from judge.commands import parse_commands
from judge.engine.board import standard_map
from judge.engine.notation import parse_orders
from judge.mail.decode import decode, read_body
from judge.render import reply_subject

# A linear parser costs about 4x at 4n; a quadratic one 16x.  The floor keeps timer noise
# on tiny times from failing a test; the ceiling is the absolute bound at 4n.
_RATIO = 9.0
_FLOOR = 0.05
_CEILING = 1.5
_SLOW = settings(
    max_examples=8,
    deadline=None,
    derandomize=True,
    # A timing failure is not made smaller by shrinking, only slower to report.
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _seconds(func: Callable[[str], object], text: str) -> float:
    """The least of three timings of ``func(text)``."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        func(text)
        best = min(best, time.perf_counter() - start)
    return best


def assert_linear(func: Callable[[str], object], make: Callable[[int], str], n: int) -> None:
    """``func`` on ``make(4 * n)`` costs at most about four times ``func`` on ``make(n)``."""
    small = _seconds(func, make(n))
    large = _seconds(func, make(4 * n))
    assert large <= max(_RATIO * small, _FLOOR), (small, large)
    assert large <= _CEILING, (small, large)


# -- subjects --------------------------------------------------------------------------

_BLANKS = st.sampled_from([" ", "\t", " \t", "  "])


@_SLOW
@given(prefix=st.sampled_from(["re", "Re", "AW", "SV", "Fwd", "re[2]", "x"]), blank=_BLANKS)
def test_reply_subject_is_linear_in_a_run_of_blanks(prefix: str, blank: str) -> None:
    # 're' + 4,000 blanks + 'x' took 0.2 s and 16,000 blanks 2.7 s: growing as n².
    assert_linear(reply_subject, lambda n: prefix + blank * (n // len(blank)) + "x", 4000)


@_SLOW
@given(prefix=st.sampled_from(["re:", "Fwd:", "AW: ", "re ", "i:", "fwd"]), blank=_BLANKS)
def test_forward_subject_is_linear(prefix: str, blank: str) -> None:
    def read(subject: str) -> object:
        return read_body("A Par H\n\nOn Mon, 1 Jan 2024 10:00, a@b.org wrote:\nx", subject)

    assert_linear(read, lambda n: (prefix + blank) * (n // 4) + "x", 4000)


# -- orders, commands, body, decoder ---------------------------------------------------

_RUNS = st.sampled_from(
    ["-", " ", "- ", "->", "=>", "A ", "Par ", "Par-", ":", "x", "qq ", ".", "(", "/", "--", "*"]
)


@_SLOW
@given(run=_RUNS)
def test_order_parser_is_linear(run: str) -> None:
    game_map = standard_map()
    # 'A Par' + '-' * n + 'Bur' took 3.8 s at 100 kB before the tokenizer read a run of
    # hyphens as one match; a line is read at most MAX_LINE_CHARS at a time.
    assert_linear(
        lambda text: parse_orders(text, game_map),
        lambda n: "A Par " + run * (n // len(run)) + " Bur",
        2500,
    )


@_SLOW
@given(run=_RUNS)
def test_command_parser_is_linear(run: str) -> None:
    def parse(text: str) -> object:
        return parse_commands(text.splitlines())

    assert_linear(parse, lambda n: ("SIGNON " + run * 40 + "\n") * (n // 300), 50000)


@_SLOW
@given(run=st.sampled_from([" ", "-", "*", ":", "_", "> ", "From: ", "On ", "\u00a0", "x@y.z "]))
def test_body_reader_is_linear(run: str) -> None:
    # 1,000 lines of 1,000 blanks took 3.6 s: each blank was retried against every
    # header word of every language.
    line = run * (2000 // len(run)) + "x:"
    assert_linear(read_body, lambda n: "\n".join([line] * (n // 2000)), 50000)


@_SLOW
@given(run=st.sampled_from([b"a", b"word ", b"a@b ", b'"', b"<", b"=?utf-8?q?a?= ", b"(", b","]))
def test_decoder_is_linear_in_a_header(run: bytes) -> None:
    # A From of 20,000 'a' took 1.9 s and 80,000 took 30 s (quadratic).
    def read(text: str) -> object:
        return decode(text.encode("latin-1"))

    def make(n: int) -> str:
        value = run * (n // len(run))
        return (b"From: " + value + b"\r\nSubject: " + value + b"\r\n\r\nA Par H\r\n").decode(
            "latin-1"
        )

    assert_linear(read, make, 20000)
