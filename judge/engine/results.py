"""Results as data: how each order fared and why."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from judge.engine.errors import OrderError
from judge.engine.orders import Order


class Note(enum.Enum):
    """Why an order did not (fully) succeed; the value is the njudge results note."""

    BOUNCE = "bounce"
    CUT = "cut"
    DISLODGED = "dislodged"
    VOID = "void"
    NO_CONVOY = "no convoy"
    DISRUPTED = "disrupted"
    DESTROYED = "destroyed"
    NO_SUCH_ORDER = "no such order"
    #: A proxy order given by a power that does not own the unit (seed 002 lets any power
    #: give one): only the owner's proxy hands a unit over, so it had no effect.
    NOT_OWNER = "not owner"


@dataclass(frozen=True, slots=True)
class Reason:
    """A note with its culprit: the province of the unit that caused it, when there is one."""

    note: Note
    culprit: str | None = None


@dataclass(frozen=True, slots=True)
class OrderResult:
    """The outcome of one order of ``power``: the unit's owner, or in a movement phase
    the power the unit was handed to by a proxy order (whose order it carried out).

    ``success`` says whether the order did what it asked (a move moved, a support was
    given, a build was made); ``reasons`` explain a failure and add remarks such as being
    dislodged.  ``default`` marks an order the judge supplied for a unit without one
    (hold, disband, civil-disorder removal).
    """

    power: str
    order: Order
    success: bool
    reasons: tuple[Reason, ...] = ()
    default: bool = False

    @property
    def notes(self) -> tuple[Note, ...]:
        """Just the notes, in order."""
        return tuple(r.note for r in self.reasons)

    def has(self, note: Note) -> bool:
        """Whether ``note`` is among the reasons."""
        return any(r.note is note for r in self.reasons)


@dataclass(frozen=True, slots=True)
class Rejection:
    """An order that was refused before adjudication, with the error that says why."""

    power: str | None
    text: str
    error: OrderError

    @property
    def code(self) -> str:
        """The stable rejection code (``FAR``, ``NYU``, ``MBE``, ...)."""
        return self.error.code

    @property
    def message(self) -> str:
        """The English explanation."""
        return self.error.message
