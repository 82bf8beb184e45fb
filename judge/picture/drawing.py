"""A phase drawn: the position's units and centres, and the orders given in it.

PLACEHOLDER of the base commit: the signatures are the contract; the drawing itself is
filled in by the renderer's work (scene, SVG and PNG writers).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from judge.engine.position import Position
from judge.engine.results import OrderResult

__all__ = ["Picture", "draw"]


@dataclass(frozen=True)
class Picture:
    """One drawn phase: :meth:`svg` is the drawing as SVG text, :meth:`png` as PNG bytes."""

    _svg: str
    width: int
    height: int

    def svg(self) -> str:
        """The picture as a standalone SVG document."""
        return self._svg

    def png(self) -> bytes:
        """The picture as PNG bytes."""
        from PIL import Image

        out = io.BytesIO()
        Image.new("RGB", (self.width, self.height), "white").save(out, "PNG")
        return out.getvalue()


def draw(
    position: Position,
    results: Sequence[OrderResult] = (),
    after: Position | None = None,
    *,
    title: str,
    caption: str = "",
) -> Picture:
    """The picture of ``position``'s phase.

    ``position`` is the board at the start of the phase (units where they stood,
    dislodged units of a retreat phase with their retreats); ``results`` the orders given
    in it and how they fared (:attr:`Adjudication.results`), drawn as arrows and marks;
    ``after`` the position the phase led to (:attr:`Adjudication.position`): its
    dislodged units' retreat options are drawn, and its centre owners colour the centres
    and count in the legend. With no ``results`` it is the picture of the board as it
    stands. ``title`` (the game, e.g. ``"Game ewinter01"``) and ``caption`` (the phase
    and the date) head the picture; no player is ever named in it, only powers.
    Raises :class:`~judge.picture.geometry.GeometryError` when the map has no geometry.
    """
    text = escape(f"{title} {caption}".strip())
    return Picture(
        f'<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="1000">'
        f"<title>{text}</title></svg>",
        1200,
        1000,
    )
