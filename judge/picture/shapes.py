"""The drawing primitives a picture is made of, shared by the SVG and the PNG writers.

A :class:`Scene` is a list of :class:`Group` values, each a named piece of the picture
(a unit, an order's mark, the legend) holding shapes; the writers turn the same scene
into SVG elements or Pillow drawing calls, so both outputs show the same thing.
Coordinates are pixels of the output picture, x to the right, y down.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from judge.picture.geometry import Point, Ring

__all__ = ["Circle", "Group", "Line", "Polygon", "Scene", "Shape", "Text"]


@dataclass(frozen=True, slots=True)
class Polygon:
    """Closed areas (``rings``, filled with the even-odd rule of one colour), outlined with
    ``stroke`` of ``width`` when a stroke is given."""

    rings: tuple[Ring, ...]
    fill: str | None
    stroke: str | None = None
    width: float = 1.0


@dataclass(frozen=True, slots=True)
class Line:
    """An open polyline; ``dash`` alternates drawn and skipped lengths (empty: solid)."""

    points: tuple[Point, ...]
    stroke: str
    width: float
    dash: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class Circle:
    """A circle of radius ``r`` around ``centre``."""

    centre: Point
    r: float
    fill: str | None
    stroke: str | None = None
    width: float = 1.0


@dataclass(frozen=True, slots=True)
class Text:
    """One line of text, vertically centred on ``at``; ``anchor`` says where ``at`` is
    along the line: ``"middle"``, ``"start"`` (its left end) or ``"end"``; ``halo`` is an outline of
    that colour drawn around the letters so that they read on any ground."""

    at: Point
    text: str
    size: float
    fill: str
    anchor: str = "middle"
    halo: str | None = None
    halo_width: float = 0.0


Shape = Polygon | Line | Circle | Text


@dataclass(frozen=True, slots=True)
class Group:
    """A named piece of the picture: ``cls`` its kinds (space-separated, as an SVG class),
    ``data`` its facts (SVG ``data-*`` attributes: a unit's power, an order's ends),
    ``items`` its shapes, drawn in order."""

    cls: str
    items: tuple[Shape, ...]
    data: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Scene:
    """A whole picture: its size, its background colour, its groups in drawing order, and
    a title for the SVG document.

    ``board`` (drawn first) is the part that is the same in every picture of a map: the
    provinces and their names. The scene builder hands the same tuple to every scene of
    the map, so the PNG writer can keep it drawn (see :mod:`judge.picture.png`).
    """

    width: int
    height: int
    background: str
    board: tuple[Group, ...] = field(default_factory=tuple)
    groups: tuple[Group, ...] = field(default_factory=tuple)
    title: str = ""
