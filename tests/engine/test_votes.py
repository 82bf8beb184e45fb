"""The tally of endings by agreement (judge/engine/votes.py): the njudge's draws with and
without DIAS, concessions, and the house rules' proposals (seed 003, 8.1-8.4), each
rule with its exact outcome."""

from __future__ import annotations

import pytest

from judge.engine import Position, standard_map
from judge.engine.phases import Phase
from judge.engine.votes import (
    Ballot,
    Tally,
    Terms,
    TermsKind,
    canonical_power,
    concession_passes,
    draw_passes,
    is_repeat,
    tally,
    terms_error,
)

AEF = frozenset({"Austria", "England", "France"})
YES, NO, ABSTAIN = Ballot.YES, Ballot.NO, Ballot.ABSTAIN


# --- names ------------------------------------------------------------------------------


def test_canonical_power_spelling() -> None:
    assert canonical_power(" ENGLAND ") == "England"
    assert canonical_power("austria-hungary") == "Austria-Hungary"
    assert canonical_power("ottoman   empire") == "Ottoman Empire"
    with pytest.raises(ValueError, match=r"bad power name '  ': expected a power's name"):
        canonical_power("  ")


def test_survivors_come_from_the_position() -> None:
    # The survivors the callers hand in: Position.powers_alive (units or centres).
    game_map = standard_map()
    start = Position.initial(game_map)
    assert draw_passes(start.powers_alive(), dict.fromkeys(start.powers_alive())) == frozenset(
        game_map.powers
    )


# --- njudge draws, DIAS -----------------------------------------------------------------


def test_dias_draw_passes_when_every_survivor_voted() -> None:
    votes = {"Austria": None, "England": None, "France": None}
    assert draw_passes(AEF, votes) == AEF


def test_dias_draw_fails_when_one_survivor_has_not_voted() -> None:
    assert draw_passes(AEF, {"Austria": None, "England": None}) is None


def test_dias_ignores_a_votes_set() -> None:
    votes = {"Austria": {"Austria"}, "England": {"England", "France"}, "France": None}
    assert draw_passes(AEF, votes, dias=True) == AEF


def test_dias_ignores_votes_of_eliminated_powers() -> None:
    votes = {"Austria": None, "England": None, "France": None, "Italy": None}
    assert draw_passes(AEF, votes) == AEF
    assert draw_passes(AEF, {"Austria": None, "England": None, "Italy": None}) is None


def test_dias_matches_names_in_any_spelling() -> None:
    assert draw_passes(["austria", "ENGLAND"], {"Austria": None, " england": None}) == frozenset(
        {"Austria", "England"}
    )


def test_dias_survivor_in_civil_disorder_blocks_the_draw() -> None:
    votes = {"Austria": None, "England": None, "France": None}
    assert draw_passes(AEF, votes, disorder={"France"}) is None
    # Back from disorder, its standing vote counts again.
    assert draw_passes(AEF, votes, disorder=()) == AEF


def test_dias_one_survivor_and_none() -> None:
    assert draw_passes({"Russia"}, {"Russia": None}) == frozenset({"Russia"})
    assert draw_passes({"Russia"}, {}) is None
    assert draw_passes((), {"Russia": None}) is None


# --- njudge draws, no DIAS --------------------------------------------------------------


def test_nodias_same_set_passes_with_that_set() -> None:
    ae = {"Austria", "England"}
    votes = {"Austria": ae, "England": ["england", "AUSTRIA"], "France": ae}
    assert draw_passes(AEF, votes, dias=False) == frozenset(ae)


def test_nodias_mismatched_set_fails() -> None:
    votes = {"Austria": {"Austria", "England"}, "England": AEF, "France": AEF}
    assert draw_passes(AEF, votes, dias=False) is None


def test_nodias_set_naming_an_eliminated_power_fails() -> None:
    aei = {"Austria", "England", "Italy"}
    assert draw_passes(AEF, dict.fromkeys(AEF, aei), dias=False) is None


def test_nodias_vote_without_a_set_passes_nothing() -> None:
    votes: dict[str, set[str] | None] = {"Austria": None, "England": None, "France": None}
    assert draw_passes(AEF, votes, dias=False) is None
    assert draw_passes(AEF, dict.fromkeys(AEF, frozenset()), dias=False) is None


def test_nodias_missing_vote_and_civil_disorder_fail() -> None:
    assert draw_passes(AEF, dict.fromkeys(["Austria", "England"], AEF), dias=False) is None
    assert draw_passes(AEF, dict.fromkeys(AEF, AEF), dias=False, disorder={"Austria"}) is None


def test_nodias_set_of_one_passes_as_that_power() -> None:
    assert draw_passes(AEF, dict.fromkeys(AEF, frozenset({"France"})), dias=False) == frozenset(
        {"France"}
    )


# --- njudge concessions -----------------------------------------------------------------


def test_concession_passes_when_all_but_one_concede_to_it() -> None:
    assert concession_passes(AEF, {"Austria": "France", "England": "france"}) == "France"


def test_concession_ignores_the_winners_missing_vote_but_not_a_counter_concession() -> None:
    two = {"Italy", "Turkey"}
    assert concession_passes(two, {"Italy": "Turkey"}) == "Turkey"
    assert concession_passes(two, {"Italy": "Turkey", "Turkey": "Italy"}) is None


def test_concession_fails_when_one_concedes_elsewhere_or_not_at_all() -> None:
    assert concession_passes(AEF, {"Austria": "France", "England": "Austria"}) is None
    assert concession_passes(AEF, {"Austria": "France"}) is None


def test_concession_to_an_eliminated_power_or_oneself_counts_for_nothing() -> None:
    assert concession_passes(AEF, dict.fromkeys(AEF, "Italy")) is None
    assert concession_passes(AEF, {"Austria": "Austria", "England": "France"}) is None


def test_concession_from_an_eliminated_power_is_ignored() -> None:
    votes = {"Austria": "France", "England": "France", "Italy": "Austria"}
    assert concession_passes(AEF, votes) == "France"


def test_concession_and_civil_disorder() -> None:
    votes = {"Austria": "France", "England": "France"}
    # A conceding survivor in disorder blocks it; a winner in disorder does not.
    assert concession_passes(AEF, votes, disorder={"England"}) is None
    assert concession_passes(AEF, votes, disorder={"France"}) == "France"


def test_concession_with_one_survivor_is_none() -> None:
    assert concession_passes({"Russia"}, {}) is None
    assert concession_passes({"Russia"}, {"Russia": "Russia"}) is None


# --- terms ------------------------------------------------------------------------------


def test_same_terms_are_equal_whatever_order_and_spelling() -> None:
    assert Terms.draw(["france", "Austria", "ENGLAND", "France"]) == Terms.draw(AEF)
    assert Terms.draw(AEF).ranks == (("Austria", 1), ("England", 1), ("France", 1))
    assert Terms.concede("france") == Terms.concede("France")
    assert Terms.concede("France").ranks == (("France", 1),)
    assert hash(Terms.draw(["England", "Austria"])) == hash(Terms.draw(["austria", "england"]))
    assert Terms.draw(["England", "France"]) != Terms.draw(AEF)
    # A draw of two is not a result ranking the two equal: different kinds of terms.
    assert Terms.draw(["England", "France"]) != Terms.result({"England": 1, "France": 1})


def test_result_ranks_become_places_with_ties_sharing() -> None:
    terms = Terms.result([("France", 1), ("england", 2), ("Austria", 2), ("Italy", 4)])
    assert terms.kind is TermsKind.RESULT
    assert terms.ranks == (("France", 1), ("Austria", 2), ("England", 2), ("Italy", 4))
    assert Terms.result({"Italy": 9, "Austria": 3, "England": 3, "France": 1}) == terms
    # Ties at the top: the next power's place counts both.
    top = Terms.result({"Austria": 1, "England": 1, "France": 2})
    assert top.ranks == (("Austria", 1), ("England", 1), ("France", 3))
    # Different order, different terms.
    assert Terms.result({"France": 1, "England": 2}) != Terms.result({"France": 2, "England": 1})


def test_bad_terms_raise_naming_the_input() -> None:
    with pytest.raises(ValueError, match=r"^England is ranked twice in the result"):
        Terms.result([("England", 1), ("england", 2)])
    with pytest.raises(ValueError, match=r"^bad rank 0 for France: ranks start at 1$"):
        Terms.result({"France": 0})
    with pytest.raises(ValueError, match=r"^a result ranks no powers"):
        Terms.result({})
    with pytest.raises(ValueError, match=r"^a draw names no powers"):
        Terms.draw([])


def test_terms_error_against_the_survivors() -> None:
    assert terms_error(Terms.draw(["Austria", "England"]), AEF) is None
    assert terms_error(Terms.concede("France"), AEF) is None
    assert terms_error(Terms.result({"France": 1, "England": 2, "Austria": 2}), AEF) is None
    assert terms_error(Terms.draw(["Austria", "Italy", "Turkey"]), AEF) == (
        "Italy, Turkey are not surviving powers (survivors: Austria, England, France)"
    )
    assert terms_error(Terms.concede("Italy"), AEF) == (
        "Italy is not a surviving power (survivors: Austria, England, France)"
    )
    assert terms_error(Terms.draw(["France"]), AEF) == (
        "a draw needs two powers or more: to end the game with France alone, propose a concession"
    )
    assert terms_error(Terms.result({"France": 1, "England": 2}), AEF) == (
        "a result ranks every survivor: Austria not ranked"
    )
    assert terms_error(Terms.result(dict.fromkeys(AEF, 1)), AEF) == (
        "every power is ranked equal: that is a draw, propose it as one"
    )


# --- re-proposal (8.2) ------------------------------------------------------------------


def _p(code: str) -> Phase:
    return Phase.parse(code)


def test_is_repeat_in_the_following_season_only() -> None:
    draw = Terms.draw(["England", "France"])
    spring = [(draw, _p("S1905M"))]
    assert is_repeat(Terms.draw(["france", "england"]), _p("F1905M"), spring)
    assert is_repeat(draw, _p("F1905R"), spring)
    assert not is_repeat(draw, _p("S1905R"), spring)  # the same season
    assert not is_repeat(draw, _p("W1905A"), spring)  # a season skipped
    assert not is_repeat(draw, _p("F1906M"), spring)  # a year later
    fall = [(draw, _p("F1905M"))]
    assert is_repeat(draw, _p("W1905A"), fall)
    assert is_repeat(draw, _p("S1906M"), fall)  # no Winter orders to vote in
    assert not is_repeat(draw, _p("F1906M"), fall)
    winter = [(draw, _p("W1905A"))]
    assert is_repeat(draw, _p("S1906M"), winter)
    assert not is_repeat(draw, _p("F1906M"), winter)


def test_is_repeat_needs_the_same_terms() -> None:
    defeated = [(Terms.draw(["England", "France"]), _p("S1905M"))]
    assert not is_repeat(Terms.draw(AEF), _p("F1905M"), defeated)
    assert not is_repeat(Terms.concede("France"), _p("F1905M"), defeated)
    assert not is_repeat(Terms.draw(AEF), _p("F1905M"), [])


# --- the house tally (8.1-8.4) ----------------------------------------------------------


def test_unanimous_yes_passes_first_time() -> None:
    assert tally(AEF, dict.fromkeys(AEF, YES), ordered=AEF) == Tally(
        passed=True,
        assent=3,
        dissent=0,
        yes=3,
        no=0,
        abstain=0,
        silent=0,
        missing=0,
        discretion=False,
    )


def test_one_no_defeats_even_on_a_repeat_or_with_abstain_as_assent() -> None:
    ballots = {"Austria": YES, "England": YES, "France": NO}
    for repeat, declared in ((False, False), (True, False), (False, True)):
        t = tally(AEF, ballots, ordered=AEF, repeat=repeat, abstain_is_assent=declared)
        assert (t.passed, t.assent, t.dissent, t.no) == (False, 2, 1, 1)


def test_first_vote_one_abstention_defeats() -> None:
    ballots = {"Austria": YES, "England": YES, "France": ABSTAIN}
    assert tally(AEF, ballots, ordered=AEF) == Tally(
        passed=False,
        assent=2,
        dissent=1,
        yes=2,
        no=0,
        abstain=1,
        silent=0,
        missing=0,
        discretion=False,
    )


def test_first_vote_silence_and_missing_orders_dissent() -> None:
    t = tally(AEF, {"Austria": YES}, ordered={"Austria", "England"})
    assert (t.passed, t.assent, t.dissent, t.silent, t.missing) == (False, 1, 2, 1, 1)


def test_repeat_abstention_silence_and_missing_orders_assent() -> None:
    ballots = {"Austria": YES, "England": ABSTAIN}
    t = tally(AEF | {"Germany"}, ballots, ordered={"Austria", "England", "France"}, repeat=True)
    assert t == Tally(
        passed=True,
        assent=4,
        dissent=0,
        yes=1,
        no=0,
        abstain=1,
        silent=1,
        missing=1,
        discretion=False,
    )


def test_abstain_as_assent_on_a_first_vote_but_missing_orders_still_dissent() -> None:
    ballots = {"Austria": YES, "England": ABSTAIN}
    passed = tally(AEF, ballots, ordered=AEF, abstain_is_assent=True)
    assert (passed.passed, passed.assent, passed.silent) == (True, 3, 1)
    defeated = tally(AEF, ballots, ordered={"Austria", "England"}, abstain_is_assent=True)
    assert (defeated.passed, defeated.assent, defeated.dissent, defeated.missing) == (
        False,
        2,
        1,
        1,
    )


def test_a_ballot_means_orders_were_sent() -> None:
    # France voted YES without any other orders: its vote counts, and it is not missing.
    t = tally(AEF, dict.fromkeys(AEF, YES), ordered={"Austria"})
    assert (t.passed, t.missing, t.silent) == (True, 0, 0)


def test_ballots_of_eliminated_powers_and_names_in_any_spelling() -> None:
    ballots = {"austria": YES, "ENGLAND": YES, "France": YES, "Italy": NO}
    t = tally(AEF, ballots, ordered={"Italy"})
    assert (t.passed, t.yes, t.no, t.assent) == (True, 3, 0, 3)


def test_civil_disorder_ballot_never_counts() -> None:
    ballots = dict.fromkeys(AEF, YES)
    first = tally(AEF, ballots, ordered=AEF, disorder={"France"})
    assert (first.passed, first.yes, first.missing, first.dissent) == (False, 2, 1, 1)
    # On a repeat it counts as a player who sent no orders: assent.
    again = tally(
        AEF,
        {"France": NO} | dict.fromkeys(["Austria", "England"], YES),
        ordered=AEF,
        repeat=True,
        disorder={"France"},
    )
    assert (again.passed, again.no, again.missing) == (True, 0, 1)


def test_one_survivor_and_no_survivors() -> None:
    assert tally({"Russia"}, {"Russia": YES}, ordered={"Russia"}).passed
    assert not tally({"Russia"}, {}, ordered={"Russia"}).passed
    nobody = tally((), {"Russia": YES}, ordered=())
    assert (nobody.passed, nobody.assent, nobody.dissent) == (False, 0, 0)


# 8.4: more than half of the players who sent orders made no mention of the proposal.


def test_discretion_when_more_than_half_of_those_ordering_are_silent() -> None:
    five = AEF | {"Germany", "Italy"}
    ballots = {"Austria": YES, "England": ABSTAIN}
    t = tally(five, ballots, ordered=five, repeat=True)
    assert (t.passed, t.silent, t.discretion) == (True, 3, True)


def test_no_discretion_at_exactly_half_silent() -> None:
    four = AEF | {"Germany"}
    t = tally(four, {"Austria": YES, "England": NO}, ordered=four, repeat=True)
    assert not t.passed and not t.discretion
    t = tally(four, {"Austria": YES, "England": ABSTAIN}, ordered=four, repeat=True)
    assert (t.passed, t.silent, t.discretion) == (True, 2, False)


def test_discretion_counts_only_players_who_sent_orders() -> None:
    # Two NMRs do not count toward 8.4: of the three who ordered, one is silent.
    five = AEF | {"Germany", "Italy"}
    t = tally(five, {"Austria": YES, "England": YES}, ordered=AEF, repeat=True)
    assert (t.passed, t.silent, t.missing, t.discretion) == (True, 1, 2, False)


def test_discretion_when_nobody_sent_orders() -> None:
    t = tally(AEF, {}, ordered=(), repeat=True)
    assert (t.passed, t.missing, t.discretion) == (True, 3, True)


def test_no_discretion_for_a_defeated_proposal() -> None:
    t = tally(AEF, {}, ordered=AEF)
    assert (t.passed, t.silent, t.discretion) == (False, 3, False)
