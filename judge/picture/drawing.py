"""A phase drawn: the position's units and centres, and the orders given in it.

:func:`draw` is the public entry: it reads the map's geometry and builds the scene
(:mod:`judge.picture.scene`); the :class:`Picture` it returns writes that one scene as
SVG (:mod:`judge.picture.svg`) or PNG (:mod:`judge.picture.png`), so both show the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from judge.engine.position import Position
from judge.engine.results import OrderResult
from judge.picture.geometry import Geometry, load_geometry
from judge.picture.png import to_png
from judge.picture.scene import build_scene
from judge.picture.shapes import Scene
from judge.picture.svg import to_svg

__all__ = ["Picture", "draw", "draw_with"]


@dataclass(frozen=True)
class Picture:
    """One drawn phase: :meth:`svg` is the drawing as SVG text, :meth:`png` as PNG bytes."""

    scene: Scene

    @property
    def width(self) -> int:
        """The width in pixels."""
        return self.scene.width

    @property
    def height(self) -> int:
        """The height in pixels."""
        return self.scene.height

    def svg(self) -> str:
        """The picture as a standalone SVG document."""
        return to_svg(self.scene)

    def png(self) -> bytes:
        """The picture as PNG bytes."""
        return to_png(self.scene)


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
    return draw_with(
        load_geometry(position.map), position, results, after, title=title, caption=caption
    )


def draw_with(
    geometry: Geometry,
    position: Position,
    results: Sequence[OrderResult] = (),
    after: Position | None = None,
    *,
    title: str,
    caption: str = "",
) -> Picture:
    """:func:`draw` with a given ``geometry`` (a map's own, or one made for a test)."""
    return Picture(build_scene(position, results, after, geometry, title=title, caption=caption))
