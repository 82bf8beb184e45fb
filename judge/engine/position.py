"""Positions: where the units are, who owns which centre, and the phase."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from judge.engine.phases import Phase, PhaseKind, Season
from judge.engine.units import Unit

if TYPE_CHECKING:
    from judge.engine.board import Map


@dataclass(frozen=True, slots=True)
class Dislodged:
    """A dislodged unit waiting for its retreat order.

    ``attacker`` is the province the dislodging unit came from (``None`` when it came by
    convoy, which does not close that province to the retreat); ``retreats`` are the
    locations the unit may retreat to, sorted.
    """

    unit: Unit
    attacker: str | None
    retreats: tuple[str, ...]


@dataclass(frozen=True)
class Position:
    """A game position at the start of ``phase``.

    ``units`` maps a province to the unit standing in it, ``centres`` a supply centre to
    its owner, ``dislodged`` (retreat phases only) a province to the unit dislodged there.
    The mappings are never changed after construction: every adjudication builds a new
    position.
    """

    map: Map = field(repr=False, compare=False)
    phase: Phase
    units: Mapping[str, Unit]
    centres: Mapping[str, str]
    dislodged: Mapping[str, Dislodged] = field(default_factory=dict)

    @classmethod
    def initial(cls, game_map: Map, year: int = 1901) -> Position:
        """The starting position of ``game_map`` in Spring ``year``."""
        return cls(
            game_map,
            Phase(year, Season.SPRING, PhaseKind.MOVEMENT),
            {u.province: u for u in game_map.start_units},
            dict(game_map.start_centres),
        )

    @classmethod
    def build(
        cls,
        game_map: Map,
        phase: Phase | str,
        units: Iterable[Unit],
        centres: Mapping[str, str] | None = None,
        dislodged: Iterable[Dislodged] = (),
    ) -> Position:
        """A position from plain values; ``ValueError`` if two units share a province."""
        if isinstance(phase, str):
            phase = Phase.parse(phase)
        by_province: dict[str, Unit] = {}
        for unit in units:
            province = unit.province
            if province in by_province:
                raise ValueError(
                    f"two units in {game_map.province_name.get(province, province)}:"
                    f" {by_province[province].short()} and {unit.short()}"
                )
            by_province[province] = unit
        return cls(
            game_map,
            phase,
            by_province,
            dict(centres if centres is not None else game_map.start_centres),
            {d.unit.province: d for d in dislodged},
        )

    def units_of(self, power: str) -> list[Unit]:
        """The units of ``power``, in province order."""
        return sorted((u for u in self.units.values() if u.power == power), key=_unit_key)

    def centres_of(self, power: str) -> list[str]:
        """The centres ``power`` owns, sorted."""
        return sorted(c for c, p in self.centres.items() if p == power)

    def adjustment(self, power: str) -> int:
        """Centres minus units: builds owed when positive, removals when negative."""
        centres = sum(1 for p in self.centres.values() if p == power)
        units = sum(1 for u in self.units.values() if u.power == power)
        return centres - units

    def powers_alive(self) -> list[str]:
        """Powers that still own a centre or a unit."""
        alive = {u.power for u in self.units.values()} | set(self.centres.values())
        return [p for p in self.map.powers if p in alive]


def _unit_key(unit: Unit) -> str:
    return unit.location
