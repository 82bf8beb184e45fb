"""The engine's one error family.

Every problem with an order is an :class:`OrderError` (a ``ValueError``) carrying a stable
``code`` and an English message that names the input.  Codes follow the DPP/DAIDE notes
where one fits (``FAR``, ``NSP``, ``NSU``, ``NYU``, ``NAS``, ``NSF``, ``NSA``, ``NRN``,
``NVR``, ``NRS``, ``YSC``, ``ESC``, ``HSC``, ``NSC``, ``CST``, ``NMB``, ``NMR``, ``MBE``);
the few without one use a descriptive code (``SYNTAX``, ``AMBIGUOUS``, ...).
"""

from __future__ import annotations


class OrderError(ValueError):
    """An order that cannot be accepted; ``text`` is the input as the player wrote it."""

    code: str = "ERROR"

    def __init__(self, message: str, *, text: str = "", code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.text = text
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return self.message


class OrderSyntaxError(OrderError):
    """The text is not an order at all (unknown word, missing part, bad province name)."""

    code = "SYNTAX"


class AmbiguousOrderError(OrderError):
    """The text could mean more than one order (e.g. a fleet to Spain, either coast)."""

    code = "AMBIGUOUS"


class IllegalOrderError(OrderError):
    """A well-formed order that the rules do not allow in this position."""

    code = "ILLEGAL"


class RetreatNotValidError(IllegalOrderError):
    """A retreat to a place the unit may not go (DAIDE ``MBE``); lists the legal choices."""

    code = "MBE"

    def __init__(self, message: str, *, text: str = "", choices: tuple[str, ...] = ()) -> None:
        super().__init__(message, text=text, code="MBE")
        self.choices = choices
