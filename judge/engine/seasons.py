"""The two-season year (house rules 3.1-3.5): one deadline plays a season's moves, then
its retreats from the orders given ahead, then (Autumn) its adjustments, each resolved
from the players' conditional orders against the position the step before left.

Pure: positions, order text and :mod:`judge.engine.conditional` items in, the season's
adjudications out; nothing here reads mail, a database or the clock.

Stub of the lead's base commit: the signature below is what the services call; the
engine's owner fills it in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from judge.engine.adjudicator import Adjudication, OrdersInput
from judge.engine.conditional import Item
from judge.engine.phases import PhaseKind
from judge.engine.position import Position
from judge.engine.rules import Rules

__all__ = ["SeasonOutcome", "adjudicate_season"]


@dataclass(frozen=True)
class SeasonOutcome:
    """What one season produced.

    ``steps``: the season's phases as played, in order: the movement, then the retreats
    and the adjustments that had something to do (a phase with nothing to do is not
    played).  ``notes``: by power, lines that say what became of the orders it gave
    ahead: the branch each IF block took, a retreat ignored because its unit was not
    dislodged, a removal read by house rule 3.4 as the unit that moved.
    """

    steps: tuple[Adjudication, ...]
    notes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def position(self) -> Position:
        """The position at the start of the next season."""
        return self.steps[-1].position

    @property
    def winner(self) -> str | None:
        """The power that reached the victory count, if one did."""
        return next((s.winner for s in self.steps if s.winner is not None), None)


def adjudicate_season(
    position: Position,
    orders: OrdersInput,
    ahead: Mapping[PhaseKind, Mapping[str, Sequence[Item]]],
    rules: Rules | None = None,
) -> SeasonOutcome:
    """Play the season starting at ``position`` (a movement phase): the moves with
    ``orders``, then each retreat and adjustment phase that follows before the next
    movement phase, with the orders each power gave ahead for it (``ahead[kind][power]``:
    order lines and IF blocks, in the order given), resolved against the position at
    that phase's start."""
    raise NotImplementedError
