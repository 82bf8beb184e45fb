"""Rule options: one value passed to the engine, never a global."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Edition(enum.Enum):
    """Which rulebook (and DATC preference set) to follow."""

    #: The 2023 rulebook with the DATC 3.0 preferences (the default).
    R2023 = "2023"
    #: The 2000 rulebook with the DATC 2.4 preferences.
    R2000 = "2000"


class CivilDisorder(enum.Enum):
    """How units are removed when a power owes removals and did not order them."""

    #: What the edition says: 2023 measures the distance to the nearest owned centre over
    #: land and sea for every unit; 2000 the distance to the nearest home centre, over land
    #: and sea for an army and over water only (fleet moves) for a fleet.
    EDITION = "edition"
    #: House rule 3.5 of the zine seed: units not in supply centres first, farthest from
    #: a home centre first; ties: sea first, then outside the home country, fleets, then
    #: alphabetical.
    HOUSE = "house"


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule option of a game.

    >>> Rules().edition.value
    '2023'
    >>> Rules.parse_edition("2000").edition is Edition.R2000
    True
    """

    edition: Edition = Edition.R2023
    #: Builds in any owned centre, not only home centres (chaos games).
    build_anywhere: bool = False
    civil_disorder: CivilDisorder = CivilDisorder.EDITION
    #: House rule 3.2: when retreats of one power meet, the first one that power listed
    #: retreats and the others are disbanded (instead of all being disbanded).
    retreat_priority: bool = False
    #: House rule 3.8: ``A(Mun) S A(Ruh)-Bur`` also orders ``A(Ruh)-Bur`` unless that unit
    #: has an explicit order of its own.
    implied_orders: bool = False
    #: Proxy orders (``A Par P Germany``) are accepted.
    proxies: bool = False
    #: Centres needed to win outright.
    victory_centres: int = 18

    @property
    def land_route_fallback(self) -> bool:
        """2000 rules: an army ordered via convoy that finds no convoy moves over land."""
        return self.edition is Edition.R2000

    @classmethod
    def parse_edition(cls, text: str, **options: object) -> Rules:
        """Rules for an edition named ``2023`` or ``2000``; raise ``ValueError`` otherwise."""
        try:
            edition = Edition(text.strip())
        except ValueError:
            raise ValueError(f"unknown rule edition {text!r}: use 2023 or 2000") from None
        return cls(edition, **options)  # type: ignore[arg-type]
