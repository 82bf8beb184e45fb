"""The phase a section of a message is for: ``PHASE <season> <year> [<kind>]`` (or
``PHASE <code>``) read and checked against the game (past, not a phase, too far ahead),
and the two-season game's headings (``RETREATS``, ``BUILDS`` ...), which head the season's
own retreats and the year's adjustments.

A :class:`Section` is kept on the conversation from its line to ``ENDPHASE``, the next
``PHASE`` or heading, a new sign-on, or the end of the message; the order lines, IF
blocks and CLEAR read in it are for its phase.  A refused section still runs to its end,
so that the orders after a refused line are refused with it, never applied elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from judge.config import Year
from judge.db.models import Game
from judge.engine.phases import Phase, PhaseKind, Season
from judge.services.game_settings import game_settings

__all__ = [
    "HEADINGS",
    "YEARS_AHEAD",
    "Section",
    "auto_adjustment",
    "heading_section",
    "is_two_season",
    "names_a_phase",
    "own_phases",
    "phase_section",
    "phase_words",
    "read_phase",
    "season_phases",
]

#: How many game years ahead a phase may be named (the njudge's limit).
YEARS_AHEAD = 5
#: The latest year a phase may be written with; a longer number is no year.
_MAX_YEAR_DIGITS = 5

_SEASONS = {
    "SPRING": Season.SPRING, "S": Season.SPRING,
    "FALL": Season.FALL, "AUTUMN": Season.FALL, "F": Season.FALL,
    "WINTER": Season.WINTER, "W": Season.WINTER,
}  # fmt: skip
_KINDS = {
    "MOVEMENT": PhaseKind.MOVEMENT, "MOVES": PhaseKind.MOVEMENT, "M": PhaseKind.MOVEMENT,
    "RETREAT": PhaseKind.RETREAT, "RETREATS": PhaseKind.RETREAT, "R": PhaseKind.RETREAT,
    "ADJUSTMENT": PhaseKind.ADJUSTMENT, "ADJUSTMENTS": PhaseKind.ADJUSTMENT,
    "BUILDS": PhaseKind.ADJUSTMENT, "A": PhaseKind.ADJUSTMENT,
}  # fmt: skip
_KIND_NAMES = {
    PhaseKind.MOVEMENT: "Movement",
    PhaseKind.RETREAT: "Retreats",
    PhaseKind.ADJUSTMENT: "Adjustments",
}
#: The two-season game's headings: RETREATS heads the season's retreats, the others the
#: year's adjustments.
HEADINGS = ("RETREATS", "BUILDS", "ADJUSTMENTS", "REMOVALS")
#: The first words of an order line that can only be an adjustment (never a move).
_ADJUSTMENT_WORDS = frozenset({"BUILD", "BUILDS", "REMOVE", "WAIVE"})
#: Season words some variants have: a PHASE line naming one is refused with the reason,
#: not read as prose.
_OTHER_SEASONS = frozenset({"SUMMER", "U"})
# A first word that starts like a phase (a season fused to its year: "F1902M", "F1902",
# "Autumn1902") or is a year ("PHASE 1902 Fall"); a small number is prose ("Phase 2").
_PHASE_LIKE = re.compile(r"(?:SPRING|SUMMER|FALL|AUTUMN|WINTER|[SFWUA])\d{1,5}[A-Z]*|\d{3,5}")
_FORMS = (
    "PHASE <season> <year> [<kind>] or PHASE <code>, e.g. PHASE Fall 1902 Movement or PHASE F1902M"
)


@dataclass(frozen=True)
class Section:
    """Where the orders after a ``PHASE`` line or a heading go.

    ``word`` the line's command (``PHASE``, ``RETREATS`` ...), ``line`` as written;
    ``phase`` the phase the orders are for, ``None`` when the line was refused (its
    orders are refused too); ``now`` whether it names the current phase (its orders are
    taken now, as without PHASE)."""

    word: str
    line: str
    phase: Phase | None
    now: bool = False

    @property
    def refusal(self) -> str:
        """What an order of a refused section is told."""
        return f"not taken: the {self.word} line above was refused"


def phase_words(phase: Phase) -> str:
    """``Fall 1902 Movement``, ``Winter 1902 Adjustments``, ``Spring 1901 Retreats``."""
    return f"{phase.season.word} {phase.year} {_KIND_NAMES[phase.kind]}"


def names_a_phase(args: Sequence[str]) -> bool:
    """Whether the words after ``PHASE`` are meant to name a phase, read as
    :func:`read_phase` reads them (which then takes or refuses them): a season, a phase
    code or what starts like one, a year; else the line is prose ("Phase two of the
    plan"), and the order lines after it are not held back for another phase.

    >>> [names_a_phase(w.split()) for w in ("Fall, 1902", "F1902", "two of it", "2 of it")]
    [True, True, False, False]
    """
    if not args:
        return True
    first = args[0].rstrip(".:,;").upper()
    return first in _SEASONS or first in _OTHER_SEASONS or bool(_PHASE_LIKE.fullmatch(first))


def read_phase(args: Sequence[str], *, advice: bool = True) -> Phase:
    """The phase that the words after ``PHASE`` name; ``ValueError`` saying what is
    wrong and what would be right.  ``advice=False``: the words name a phase for
    another command (``MAP``, ``judge map``), and the error says only what is wrong, as
    ``'<words>' is not a phase: <why>``, for that command to add its own advice.

    >>> str(read_phase(["Autumn", "1902", "Builds"]))
    'W1902A'
    >>> str(read_phase(["s1903r"]))
    'S1903R'
    >>> read_phase(["Winter", "1901", "Movement"], advice=False)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: 'Winter 1901 Movement' is not a phase: Winter has ... (Winter 1901 Adjustments)
    """
    written = " ".join(args)
    command = "PHASE " if advice else ""

    def refused(reason: str, what: str, joint: str = ": ") -> ValueError:
        # PHASE says what to write; another command's reader is told only what is wrong.
        if advice:
            return ValueError(f"{reason}{joint}write {what}")
        return ValueError(f"{written!r} is not a phase: {reason}")

    keys = [word.rstrip(".:,;").upper() for word in args]
    if not keys:
        raise refused("PHASE names no phase", _FORMS)
    if len(keys) == 1:
        try:
            return Phase.parse(keys[0])
        except ValueError as err:
            raise refused(str(err), _FORMS, "; ") from None
    if len(keys) > 3:
        raise refused(f"too many words {'after PHASE' if advice else 'for a phase'}", _FORMS)
    season = _SEASONS.get(keys[0])
    if season is None:
        raise refused(
            f"{args[0]!r} is not a season",
            "Spring, Fall (or Autumn) or Winter, e.g. PHASE Fall 1902 Movement",
        )
    if not keys[1].isdigit() or len(keys[1]) > _MAX_YEAR_DIGITS:
        raise refused(f"{args[1]!r} is not a year", f"e.g. PHASE {season.word} 1902")
    year = int(keys[1])
    kind = _KINDS.get(keys[2]) if len(keys) == 3 else None
    if len(keys) == 3 and kind is None:
        raise refused(f"{args[2]!r} is not a kind of phase", "Movement, Retreats or Adjustments")
    if kind is None:
        kind = PhaseKind.ADJUSTMENT if season is Season.WINTER else PhaseKind.MOVEMENT
    if season is Season.FALL and kind is PhaseKind.ADJUSTMENT:
        # The year's adjustments follow the Fall: "Fall 1902 Builds" is W1902A.
        season = Season.WINTER
    if season is Season.WINTER and kind is not PhaseKind.ADJUSTMENT:
        raise ValueError(
            f"{written!r} is not a phase: Winter has adjustments only "
            f"({command}Winter {year} Adjustments)"
        )
    if season is Season.SPRING and kind is PhaseKind.ADJUSTMENT:
        raise ValueError(
            f"{written!r} is not a phase: there are no adjustments after Spring; they "
            f"come in Winter ({command}Winter {year} Adjustments)"
        )
    return Phase(year, season, kind)


def is_two_season(game: Game) -> bool:
    """Whether ``game`` plays the two-season year (house rule 3.1)."""
    return game_settings(game).year is Year.TWO_SEASON


def season_phases(phase: Phase) -> dict[PhaseKind, Phase]:
    """The phases a two-season game plays with ``phase``'s moves (a movement phase): the
    season's retreats and, in Autumn, the year's adjustments.

    >>> [str(p) for p in season_phases(Phase.parse("F1901M")).values()]
    ['F1901R', 'W1901A']
    """
    out = {PhaseKind.RETREAT: Phase(phase.year, phase.season, PhaseKind.RETREAT)}
    if phase.season is Season.FALL:
        out[PhaseKind.ADJUSTMENT] = Phase(phase.year, Season.WINTER, PhaseKind.ADJUSTMENT)
    return out


def own_phases(game: Game, current: Phase) -> tuple[Phase, ...]:
    """The phases a two-season game plays at the deadline of ``current`` besides its
    moves (:func:`season_phases`, in order): none for a standard game, nor outside a
    movement phase."""
    if not is_two_season(game) or current.kind is not PhaseKind.MOVEMENT:
        return ()
    return tuple(season_phases(current).values())


def phase_section(game: Game, current: Phase, line: str, target: Phase) -> Section:
    """The section of ``PHASE`` line ``line`` naming ``target``, with the game at
    ``current`` (``now`` when it names the current phase); ``ValueError`` for a phase
    past or too far ahead."""
    if target == current:
        return Section("PHASE", line, target, now=True)
    if target < current:
        raise ValueError(f"{target.code} is past: game {game.name} is at {current.code}")
    if target.year > current.year + YEARS_AHEAD:
        raise ValueError(
            f"{target.code} is too far ahead: orders may be sent up to {YEARS_AHEAD} years "
            f"ahead of {current.code} (up to W{current.year + YEARS_AHEAD}A)"
        )
    return Section("PHASE", line, target)


def heading_section(game: Game, current: Phase, word: str, line: str) -> Section:
    """The section a two-season heading (``RETREATS``, ``BUILDS`` ...) opens; ``ValueError``
    in a standard game, or for the year's adjustments in Spring."""
    retreats = word == "RETREATS"
    if not is_two_season(game):
        if retreats:
            season = current.season if current.season is not Season.WINTER else Season.SPRING
            year = current.year + (current.season is Season.WINTER)
            named = Phase(year, season, PhaseKind.RETREAT)
            raise ValueError(
                f"{word} heads retreats in a two-season game; this game plays each phase at "
                f"its own deadline: send them in the retreat phase, or after PHASE {named.code}"
            )
        named = Phase(current.year, Season.WINTER, PhaseKind.ADJUSTMENT)
        raise ValueError(
            f"{word} heads builds and removals in a two-season game; this game plays each "
            f"phase at its own deadline: send them in the adjustment phase, or after "
            f"PHASE {named.code}"
        )
    own = own_phases(game, current)
    if retreats:
        return Section(word, line, own[0])
    if len(own) < 2:
        raise ValueError(
            f"{word} heads the year's builds and removals, sent with the Autumn orders: "
            f"there are none after Spring (send them with your Autumn orders, or after "
            f"PHASE W{current.year}A)"
        )
    return Section(word, line, own[1])


def auto_adjustment(game: Game, current: Phase, line: str) -> Section | None:
    """The year's adjustments, for an order line outside any section that can only be
    an adjustment (``Build A Par``, ``Remove F Tri``, ``Waive``) in a two-season game's
    Autumn; ``None`` otherwise (the line is for the current phase)."""
    words = line.split(None, 1)
    if not words or words[0].rstrip(".:,;").upper() not in _ADJUSTMENT_WORDS:
        return None
    own = own_phases(game, current)
    if len(own) < 2:
        return None
    return Section("BUILDS", line, own[1])
