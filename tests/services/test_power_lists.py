"""The readers of a list of powers (PRESS TO, SET DRAW, PROPOSE's terms) read alike."""

from __future__ import annotations

import pytest

from judge.commands.base import Malformed
from judge.commands.press import read_request
from judge.commands.proposals import read_terms
from judge.commands.votes import read_powers
from judge.services.press import Targets


def _to(words: list[str]) -> tuple[str, ...]:
    to = read_request("PRESS", "", ["TO", *words]).to
    assert isinstance(to, Targets)
    return to.powers


def test_a_press_recipient_written_with_a_foreign_letter_is_read_not_dropped() -> None:
    # "Frånce" was dropped from the recipients without a word, and with a comma after
    # it the reader crashed (ValueError); it is France, as SET DRAW reads it.
    assert _to(["Germany", "Frånce"]) == ("Germany", "France")
    assert _to(["Germany", "Frånce,Italy"]) == ("Germany", "France", "Italy")
    assert _to(["Frånce"]) == ("France",)


@pytest.mark.parametrize(
    "words",
    [["AEF"], ["A", "E", "F"], ["Austria,", "England", "and", "France."], ["a,e,f"],
     ["Austria", "Eng", "Frånce"]],
)  # fmt: skip
def test_the_power_lists_of_press_votes_and_proposals_read_alike(words: list[str]) -> None:
    expected = ("Austria", "England", "France")
    assert read_powers(words, "SET DRAW") == expected
    assert _to(words) == expected
    assert read_terms(" ".join(["DRAW", *words]))[0].powers == set(expected)


def test_each_reader_names_the_word_that_names_no_power() -> None:
    with pytest.raises(Malformed, match=r"^SET DRAW: 'Xy' names no power"):
        read_powers(["A", "Xy"], "SET DRAW")
    with pytest.raises(Malformed, match=r"^TO Xy: 'Xy' names no power"):
        read_request("PRESS", "", ["TO", "A", "Xy"])
    with pytest.raises(Malformed, match=r"^DRAW Xy: 'Xy' names no power"):
        read_terms("DRAW A Xy")
