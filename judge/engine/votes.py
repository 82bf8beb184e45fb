"""Ending a game by agreement: the tally of draw votes, concessions and house proposals.

Pure functions over plain values; nothing here reads mail, a database or a clock.  The
callers (the commands and services that come next) hand in:

* the **survivors**: the powers that still own a unit or a supply centre
  (:meth:`judge.engine.Position.powers_alive`);
* the **votes** as data: a mapping from a power to what it voted;
* the powers in **civil disorder**, whose votes never count for them.

Power names are compared in one canonical spelling (:func:`canonical_power`: spaces
collapsed, each word capitalised), so ``"france"`` and ``"France"`` are one power.  Every
answer names powers in that spelling.

Three ways to end a game live here:

* the njudge's draw (:func:`draw_passes`), with or without DIAS ("Draws Include All
  Survivors");
* the njudge's concession (:func:`concession_passes`);
* the house rules' proposals (seed 003, section 8): :class:`Terms`, :class:`Ballot`,
  :func:`is_repeat` and :func:`tally`.

>>> survivors = {"England", "France", "Germany"}
>>> sorted(draw_passes(survivors, {"England": None, "France": None, "Germany": None}) or ())
['England', 'France', 'Germany']
>>> draw_passes(survivors, {"England": None, "France": None}) is None
True
>>> concession_passes(survivors, {"England": "France", "Germany": "France"})
'France'
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from judge.engine.phases import Phase, Season

__all__ = [
    "Ballot",
    "Tally",
    "Terms",
    "TermsKind",
    "canonical_power",
    "concession_passes",
    "draw_passes",
    "is_repeat",
    "tally",
    "terms_error",
]


def canonical_power(name: str) -> str:
    """``name`` in the one spelling the tally compares: spaces collapsed, and each word
    (and each part of a hyphenated word) a capital then lower case.

    Raises ``ValueError`` for a name with no letters in it.

    >>> canonical_power("  fRANCE ")
    'France'
    >>> canonical_power("austria-hungary")
    'Austria-Hungary'
    """
    words = name.split()
    if not words:
        raise ValueError(f"bad power name {name!r}: expected a power's name, e.g. 'France'")
    return " ".join(
        "-".join(part[:1].upper() + part[1:].lower() for part in w.split("-")) for w in words
    )


def _powers(names: Iterable[str]) -> frozenset[str]:
    return frozenset(canonical_power(n) for n in names)


# --------------------------------------------------------------------------------------
# The njudge's draw and concession
# --------------------------------------------------------------------------------------


def draw_passes(
    survivors: Collection[str],
    votes: Mapping[str, Collection[str] | None],
    dias: bool = True,
    disorder: Collection[str] = frozenset(),
) -> frozenset[str] | None:
    """The draw that passes, as the set of its powers, or ``None`` when none does.

    ``votes`` maps each power that voted for a draw to the powers it named (``None`` or
    empty when it named none, as ``SET DRAW`` alone does); a power that has not voted, or
    has withdrawn its vote, is absent.

    * With ``dias`` (Draws Include All Survivors, the default) the draw passes when every
      survivor has voted for a draw; any set a vote names is ignored, and the draw is
      among all the survivors.
    * Without it, the draw passes when every survivor has voted for the same set of
      powers, and that set names survivors only; the draw is among that set.  A vote that
      names no set, or a set naming a power that is not a survivor, passes nothing.  A set
      of one power passes like any other (the njudge calls it a concession in all but
      name; the caller words the ending).

    Rules chosen:

    * **Civil disorder**: a vote from a power in ``disorder`` never counts for it, and the
      power is still a survivor whose assent unanimity needs, so no draw passes while a
      survivor is in civil disorder (the njudge's help: "unanimous approval of surviving
      players is required").  When the seat is taken over or the player returns, its
      standing vote (if the caller kept it) counts again.
    * Votes from powers that are not survivors are ignored.
    * No survivors: nothing passes.  One survivor: its own vote passes a "draw" of one
      (the game is its already; the caller reports a solo).

    >>> both = {"Austria", "England"}
    >>> draw_passes(both, {"Austria": {"England"}, "England": {"England"}}, dias=False)
    frozenset({'England'})
    >>> draw_passes(both, {"Austria": None, "England": None}, disorder={"Austria"})
    """
    alive = _powers(survivors)
    if not alive:
        return None
    blocked = _powers(disorder)
    counted = {
        canonical_power(power): choice
        for power, choice in votes.items()
        if canonical_power(power) in alive and canonical_power(power) not in blocked
    }
    if set(counted) != alive:
        return None
    if dias:
        return alive
    sets = {_powers(choice) if choice else frozenset() for choice in counted.values()}
    if len(sets) != 1:
        return None
    (agreed,) = sets
    if not agreed or not agreed <= alive:
        return None
    return agreed


def concession_passes(
    survivors: Collection[str],
    concessions: Mapping[str, str],
    disorder: Collection[str] = frozenset(),
) -> str | None:
    """The winner by concession, or ``None``.

    ``concessions`` maps each power that conceded to the power it conceded to.  A
    concession passes when every survivor but one has conceded to that one, and that one
    has not itself conceded to another (two survivors conceding to each other end
    nothing: neither claims the game).

    Rules chosen (as for :func:`draw_passes`): a concession from a power in ``disorder``
    never counts, so a conceding survivor in civil disorder blocks it (a winner in civil
    disorder does not: it has nothing to give); a concession to a power that is not a
    survivor, or to oneself, counts for nothing; concessions from non-survivors are
    ignored.  With one survivor there is nobody to concede (the game is its by the solo
    rules), so ``None``.

    >>> concession_passes({"Italy", "Turkey"}, {"Italy": "Turkey"})
    'Turkey'
    >>> concession_passes({"Italy", "Turkey"}, {"Italy": "Turkey", "Turkey": "Italy"})
    >>> concession_passes({"Italy"}, {})
    """
    alive = _powers(survivors)
    if len(alive) < 2:
        return None
    blocked = _powers(disorder)
    counted: dict[str, str] = {}
    for power, winner in concessions.items():
        who, to = canonical_power(power), canonical_power(winner)
        if who in alive and who not in blocked and to in alive and to != who:
            counted[who] = to
    for winner in alive:
        if winner not in counted and all(
            counted.get(other) == winner for other in alive - {winner}
        ):
            return winner
    return None


# --------------------------------------------------------------------------------------
# The house rules' proposals (seed 003, section 8)
# --------------------------------------------------------------------------------------


class TermsKind(enum.Enum):
    """What a proposal ends the game with (8.1, 8.6)."""

    DRAW = "draw"
    CONCEDE = "concede"
    RESULT = "result"


@dataclass(frozen=True, slots=True)
class Terms:
    """The terms of a proposal, normalised so that the same terms are equal values.

    Build it with :meth:`draw`, :meth:`concede` or :meth:`result`; they put the powers in
    one spelling (:func:`canonical_power`) and one order, and a ranked result's numbers
    into places, so ``RESULT F 1, E 2, A 2`` and ``RESULT A 3, E 3, F 1`` are one proposal.

    ``ranks`` holds ``(power, place)`` pairs sorted by place and name: a draw is every
    power in place 1, a concession its one power in place 1.

    >>> Terms.draw(["france", "Austria", "England"]) == Terms.draw(["England", "France", "Austria"])
    True
    >>> Terms.result({"France": 1, "England": 2, "Austria": 2}).ranks
    (('France', 1), ('Austria', 2), ('England', 2))
    >>> Terms.result({"France": 1, "England": 3, "Austria": 3}) == Terms.result(
    ...     {"France": 1, "England": 2, "Austria": 2})
    True
    """

    kind: TermsKind
    ranks: tuple[tuple[str, int], ...]

    @property
    def powers(self) -> frozenset[str]:
        """Every power the terms name."""
        return frozenset(power for power, _ in self.ranks)

    @classmethod
    def draw(cls, powers: Iterable[str]) -> Terms:
        """A draw among ``powers`` (a power named twice counts once); ``ValueError`` when
        it names none."""
        named = _powers(powers)
        if not named:
            raise ValueError("a draw names no powers: expected the powers of the draw, e.g. A E F")
        return cls(TermsKind.DRAW, tuple((p, 1) for p in sorted(named)))

    @classmethod
    def concede(cls, power: str) -> Terms:
        """A concession to ``power``."""
        return cls(TermsKind.CONCEDE, ((canonical_power(power), 1),))

    @classmethod
    def result(cls, ranks: Mapping[str, int] | Iterable[tuple[str, int]]) -> Terms:
        """A ranked result (8.6): each power's rank, equal ranks sharing a place.

        The ranks become places: a power's place is one more than the number of powers
        ranked before it, so only their order matters.  ``ValueError`` names a power
        ranked twice (in any spelling), a rank below 1, or an empty result.
        """
        pairs = list(ranks.items()) if isinstance(ranks, Mapping) else list(ranks)
        if not pairs:
            raise ValueError("a result ranks no powers: expected e.g. F 1, E 2, A 2")
        given: dict[str, int] = {}
        for name, rank in pairs:
            power = canonical_power(name)
            if power in given:
                raise ValueError(f"{power} is ranked twice in the result: rank each power once")
            if rank < 1:
                raise ValueError(f"bad rank {rank} for {power}: ranks start at 1")
            given[power] = rank
        places = {
            power: 1 + sum(1 for other in given.values() if other < rank)
            for power, rank in given.items()
        }
        ordered = sorted(places.items(), key=lambda pair: (pair[1], pair[0]))
        return cls(TermsKind.RESULT, tuple(ordered))


def terms_error(terms: Terms, survivors: Collection[str]) -> str | None:
    """Why ``terms`` cannot end this game, or ``None`` when they can.

    A proposal may name survivors only; a draw needs two of them (a draw of one is a
    concession); a ranked result ranks every survivor, in at least two places (all
    equal is a draw: propose it as one).  A draw may leave survivors out (8.1: "any
    terms"; 8.6).

    >>> terms_error(Terms.draw(["France"]), {"France", "Italy"})
    'a draw needs two powers or more: to end the game with France alone, propose a concession'
    >>> terms_error(Terms.concede("Russia"), {"France", "Italy"})
    'Russia is not a surviving power (survivors: France, Italy)'
    """
    alive = _powers(survivors)
    gone = sorted(terms.powers - alive)
    if gone:
        names = ", ".join(gone)
        verb = "is not a surviving power" if len(gone) == 1 else "are not surviving powers"
        return f"{names} {verb} (survivors: {', '.join(sorted(alive))})"
    if terms.kind is TermsKind.DRAW and len(terms.powers) < 2:
        (only,) = terms.powers
        return (
            f"a draw needs two powers or more: to end the game with {only} alone, "
            "propose a concession"
        )
    if terms.kind is TermsKind.RESULT:
        missing = sorted(alive - terms.powers)
        if missing:
            return f"a result ranks every survivor: {', '.join(missing)} not ranked"
        if len({place for _, place in terms.ranks}) < 2:
            return "every power is ranked equal: that is a draw, propose it as one"
    return None


class Ballot(enum.Enum):
    """A player's answer to a proposal (``VOTE <n> YES|NO|ABSTAIN``); a player who gave
    none is simply absent from the ballots."""

    YES = "yes"
    NO = "no"
    ABSTAIN = "abstain"


def is_repeat(terms: Terms, phase: Phase, defeated: Iterable[tuple[Terms, Phase]]) -> bool:
    """Whether ``terms`` put in ``phase`` are the same terms defeated in the season before
    (8.2), so that not voting counts as assent.

    ``defeated`` holds each defeated proposal's terms and the phase whose deadline closed
    its vote.  "The following season" is the next season of the calendar (Spring, then
    Fall, then Winter, then the next Spring), or, from a Fall, the next Spring too: a
    Winter with no adjustments has no orders to vote in, and a player's next orders
    after a Fall may well be the Spring's.  Retreat phases belong to their season.

    >>> draw = Terms.draw(["England", "France"])
    >>> is_repeat(draw, Phase.parse("F1905M"), [(draw, Phase.parse("S1905M"))])
    True
    >>> is_repeat(draw, Phase.parse("S1906M"), [(draw, Phase.parse("S1905M"))])
    False
    """
    return any(old == terms and _follows(when, phase) for old, when in defeated)


def _follows(before: Phase, after: Phase) -> bool:
    """Whether ``after`` is in the season right after ``before``'s (see :func:`is_repeat`)."""
    if before.season is Season.SPRING:
        return (after.year, after.season) == (before.year, Season.FALL)
    if before.season is Season.FALL:
        return (after.year, after.season) in {
            (before.year, Season.WINTER),
            (before.year + 1, Season.SPRING),
        }
    return (after.year, after.season) == (before.year + 1, Season.SPRING)


@dataclass(frozen=True, slots=True)
class Tally:
    """The outcome of one proposal's vote: passed or defeated, the counts, and whether
    the master has the 8.4 discretion.  It names no player (8.5).

    The counts are of the surviving players: ``yes``, ``no`` and ``abstain`` as voted,
    ``silent`` for those who sent orders without voting, ``missing`` for those who sent
    no orders (or are in civil disorder).  ``assent`` and ``dissent`` are how they were
    counted under the proposal's rules; they add up to the number of survivors.
    """

    passed: bool
    assent: int
    dissent: int
    yes: int
    no: int
    abstain: int
    silent: int
    missing: int
    #: 8.4: it passed, and more than half of the players who sent orders made no mention
    #: of it (or nobody sent orders at all): the master decides whether the game ends.
    discretion: bool


def tally(
    survivors: Collection[str],
    ballots: Mapping[str, Ballot],
    ordered: Collection[str],
    *,
    repeat: bool = False,
    abstain_is_assent: bool = False,
    disorder: Collection[str] = frozenset(),
) -> Tally:
    """Count a proposal's vote at its deadline (8.1-8.4).

    ``survivors`` are the players who vote (8.1: a unanimous vote of the surviving
    players; the master does not vote).  ``ballots`` maps a player to its ballot; a
    player absent from it did not vote.  ``ordered`` names the players who sent orders
    this phase; a player who sent a ballot sent orders, whatever ``ordered`` says.
    ``repeat`` (:func:`is_repeat`) is 8.2's re-proposal in the season after its defeat;
    ``abstain_is_assent`` the master's 8.3 declaration.

    How each survivor counts:

    * ``YES`` assents and ``NO`` dissents, always.
    * ``ABSTAIN``, or orders sent without a vote: dissent on a first vote (8.2); assent
      on a repeat (8.2) or under the master's declaration (8.3).
    * no orders at all: dissent on a first vote, even under 8.3 (8.2 names NMRs as
      dissent, and 8.3 changes abstention only: a player who sent nothing cannot have
      read the proposal); assent on a repeat (8.2: not voting is assent "whether or not"
      the player voted before).
    * in civil disorder: its ballot never counts for it; it counts as sending no orders.

    It passes when every survivor assents, and there is at least one survivor.

    >>> t = tally({"England", "France"}, {"England": Ballot.YES, "France": Ballot.ABSTAIN},
    ...           ordered={"England", "France"})
    >>> (t.passed, t.assent, t.dissent, t.abstain)
    (False, 1, 1, 1)
    >>> tally({"England", "France"}, {"England": Ballot.YES, "France": Ballot.ABSTAIN},
    ...       ordered={"England", "France"}, repeat=True).passed
    True
    """
    alive = _powers(survivors)
    blocked = _powers(disorder)
    voted = {
        canonical_power(p): b
        for p, b in ballots.items()
        if canonical_power(p) in alive and canonical_power(p) not in blocked
    }
    sent = ((_powers(ordered) & alive) - blocked) | set(voted)
    silence_assents = repeat or abstain_is_assent
    yes = no = abstain = silent = missing = assent = 0
    for power in alive:
        ballot = voted.get(power)
        if ballot is Ballot.YES:
            yes += 1
            assent += 1
        elif ballot is Ballot.NO:
            no += 1
        elif ballot is Ballot.ABSTAIN:
            abstain += 1
            assent += 1 if silence_assents else 0
        elif power in sent:
            silent += 1
            assent += 1 if silence_assents else 0
        else:
            missing += 1
            assent += 1 if repeat else 0
    passed = bool(alive) and assent == len(alive)
    # 8.4: "made no mention" is a player who sent orders without any ballot; a pass with
    # no orders sent at all is the absurd result the rule is there for, so it is flagged.
    discretion = passed and (not sent or 2 * silent > len(sent))
    return Tally(
        passed=passed,
        assent=assent,
        dissent=len(alive) - assent,
        yes=yes,
        no=no,
        abstain=abstain,
        silent=silent,
        missing=missing,
        discretion=discretion,
    )
