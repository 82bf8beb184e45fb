"""Seasons, phase kinds and phases (``S1901M``, ``F1901R``, ``W1901A``)."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass


class Season(enum.Enum):
    """The three seasons of a game year, in order."""

    SPRING = "S"
    FALL = "F"
    WINTER = "W"

    @property
    def word(self) -> str:
        """``Spring``, ``Fall`` or ``Winter``."""
        return {"S": "Spring", "F": "Fall", "W": "Winter"}[self.value]


class PhaseKind(enum.Enum):
    """Movement, retreats or adjustments."""

    MOVEMENT = "M"
    RETREAT = "R"
    ADJUSTMENT = "A"

    @property
    def word(self) -> str:
        """``Movement``, ``Retreat`` or ``Adjustment``."""
        return {"M": "Movement", "R": "Retreat", "A": "Adjustment"}[self.value]


_CODE = re.compile(r"^\s*([SFWA])\s*(\d{1,5})\s*([MRAB])\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Phase:
    """One phase of the game, ordered in time.

    >>> Phase.parse("f1901r")
    Phase(year=1901, season=<Season.FALL: 'F'>, kind=<PhaseKind.RETREAT: 'R'>)
    >>> str(Phase.parse("W1901A"))
    'W1901A'
    """

    year: int
    season: Season
    kind: PhaseKind

    def __lt__(self, other: Phase) -> bool:
        return self.sort_key < other.sort_key

    def __le__(self, other: Phase) -> bool:
        return self.sort_key <= other.sort_key

    @property
    def sort_key(self) -> tuple[int, int, int]:
        """A key that sorts phases in playing order."""
        seasons = (Season.SPRING, Season.FALL, Season.WINTER)
        kinds = (PhaseKind.MOVEMENT, PhaseKind.RETREAT, PhaseKind.ADJUSTMENT)
        return (self.year, seasons.index(self.season), kinds.index(self.kind))

    @classmethod
    def parse(cls, code: str) -> Phase:
        """Parse a phase code such as ``S1901M``; raise ``ValueError`` naming the input."""
        m = _CODE.match(code)
        if not m:
            raise ValueError(
                f"bad phase code {code!r}: expected season S/F/W, a year and M/R/A, e.g. S1901M"
            )
        season_letter, year, kind_letter = m.group(1).upper(), int(m.group(2)), m.group(3).upper()
        if season_letter == "A":  # some judges write Autumn
            season_letter = "F"
        if kind_letter == "B":  # and B for builds
            kind_letter = "A"
        season = Season(season_letter)
        kind = PhaseKind(kind_letter)
        if (season is Season.WINTER) != (kind is PhaseKind.ADJUSTMENT):
            raise ValueError(
                f"bad phase code {code!r}: adjustments happen in Winter only and Winter has only "
                "adjustments (e.g. S1901M, F1901R, W1901A)"
            )
        return cls(year, season, kind)

    @property
    def code(self) -> str:
        """The judge phase code, e.g. ``F1901M``."""
        return f"{self.season.value}{self.year}{self.kind.value}"

    def __str__(self) -> str:
        return self.code

    def describe(self) -> str:
        """``Movement for Spring of 1901`` style text used in results."""
        return f"{self.kind.word} for {self.season.word} of {self.year}"

    def next_candidates(self) -> Phase:
        """The phase that follows in the full sequence (no phase skipped)."""
        if self.kind is PhaseKind.MOVEMENT:
            return Phase(self.year, self.season, PhaseKind.RETREAT)
        if self.kind is PhaseKind.RETREAT:
            if self.season is Season.SPRING:
                return Phase(self.year, Season.FALL, PhaseKind.MOVEMENT)
            return Phase(self.year, Season.WINTER, PhaseKind.ADJUSTMENT)
        return Phase(self.year + 1, Season.SPRING, PhaseKind.MOVEMENT)
