"""The glyphs of the picture, as shapes: units, arrows, the ends of support and convoy
lines, crosses and rings. Pure geometry: a point and a style in, shapes out.

One convention runs through them: a failed order is drawn hollow (a hollow arrow head,
a hollow end) on a dashed line, a successful one solid, so that the outcome reads
without telling colours apart. A support is a sign of its own, not a kind of arrow: one
thin dashed line in the supporter's colour, with no dark casing, ending in a dot.
"""

from __future__ import annotations

import math

from judge.picture.geometry import Point
from judge.picture.palette import BOARD, PowerStyle
from judge.picture.shapes import Circle, Line, Polygon, Shape, Text

__all__ = [
    "ARMY_R",
    "UNIT_R",
    "arrow",
    "build_ring",
    "convoy_ring",
    "cross",
    "dislodged_ring",
    "end_dot",
    "end_square",
    "hold_square",
    "line_to",
    "option_arrow",
    "shorten",
    "support_line",
    "unit",
]

#: The radius of an army's disc; a fleet's hull is about as wide as an army's disc.
ARMY_R = 10.0
#: How far from a unit's point an arrow or a line stops, so that it never hides the unit.
UNIT_R = 13.0
#: Dashes of a failed move; supports are thin dashes, convoys dots.
FAILED_DASH = (9.0, 5.0)
SUPPORT_DASH = (6.0, 3.5)
CONVOY_DASH = (2.0, 3.0)


def unit(at: Point, is_fleet: bool, style: PowerStyle, scale: float = 1.0) -> tuple[Shape, ...]:
    """An army (a disc) or a fleet (a hull) in the power's colour with its letter."""
    x, y = at
    if is_fleet:
        hull = tuple(
            (x + dx * scale, y + dy * scale) for dx, dy in ((-14, -6), (14, -6), (9, 7), (-9, 7))
        )
        body: Shape = Polygon((hull,), style.fill, BOARD.ink, 1.3 * scale)
        letter = Text((x, y + 0.5 * scale), style.letter, 11 * scale, style.ink)
    else:
        body = Circle(at, ARMY_R * scale, style.fill, BOARD.ink, 1.3 * scale)
        letter = Text((x, y + 0.5 * scale), style.letter, 12 * scale, style.ink)
    return (body, letter)


def shorten(points: tuple[Point, ...], start: float, end: float) -> tuple[Point, ...]:
    """The polyline ``points`` with ``start`` cut off its first segment and ``end`` off its
    last (never past the segment's middle, so a short line keeps a length)."""
    pts = list(points)
    if len(pts) < 2:
        return tuple(pts)

    def cut(a: Point, b: Point, by: float) -> Point:
        length = math.hypot(b[0] - a[0], b[1] - a[1])
        if length == 0:
            return a
        t = min(by / length, 0.45)
        return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)

    pts[0] = cut(pts[0], pts[1], start)
    pts[-1] = cut(pts[-1], pts[-2], end)
    return tuple(pts)


def _head(tip: Point, before: Point, length: float, half: float) -> tuple[Point, Point, Point]:
    dx, dy = tip[0] - before[0], tip[1] - before[1]
    norm = math.hypot(dx, dy) or 1.0
    ux, uy = dx / norm, dy / norm
    bx, by = tip[0] - ux * length, tip[1] - uy * length
    return (tip, (bx - uy * half, by + ux * half), (bx + uy * half, by - ux * half))


def arrow(
    points: tuple[Point, ...],
    colour: str,
    succeeded: bool,
    width: float = 3.0,
    head: float = 13.0,
) -> tuple[Shape, ...]:
    """An arrow along ``points`` (already shortened): a cased shaft and a head at the
    end; solid when the order ``succeeded``, dashed with a hollow head when it failed."""
    tip, before = points[-1], points[-2]
    length = math.hypot(tip[0] - before[0], tip[1] - before[1]) or 1.0
    back = min(head * 0.8, length * 0.8)
    base = (
        tip[0] - (tip[0] - before[0]) / length * back,
        tip[1] - (tip[1] - before[1]) / length * back,
    )
    shaft = (*points[:-1], base)
    dash = () if succeeded else FAILED_DASH
    triangle = _head(tip, before, head, head * 0.5)
    fill = colour if succeeded else BOARD.halo
    return (
        Line(shaft, BOARD.ink, width + 2.4, dash),
        Line(shaft, colour, width, dash),
        Polygon((triangle,), fill, BOARD.ink, 1.6),
    )


def option_arrow(points: tuple[Point, ...], colour: str) -> tuple[Shape, ...]:
    """A retreat a dislodged unit may make: a thin arrow on a white casing, lighter than
    an order's dark-cased arrow."""
    tip, before = points[-1], points[-2]
    triangle = _head(tip, before, 9.0, 4.5)
    length = math.hypot(tip[0] - before[0], tip[1] - before[1]) or 1.0
    back = min(7.0, length * 0.8)
    base = (
        tip[0] - (tip[0] - before[0]) / length * back,
        tip[1] - (tip[1] - before[1]) / length * back,
    )
    shaft = (*points[:-1], base)
    return (
        Line(shaft, BOARD.halo, 4.4),
        Line(shaft, colour, 2.0),
        Polygon((triangle,), colour, BOARD.halo, 1.2),
    )


def convoy_ring(at: Point, colour: str, succeeded: bool) -> tuple[Shape, ...]:
    """A convoy by a fleet that stands on the convoyed army's way: a dotted ring around
    the fleet, with the convoy's square on it."""
    x, y = at
    r = UNIT_R + 4
    steps = 40
    ring = tuple(
        (x + r * math.cos(2 * math.pi * i / steps), y + r * math.sin(2 * math.pi * i / steps))
        for i in range(steps + 1)
    )
    corner = (x + r * 0.7071, y - r * 0.7071)
    return (*line_to(ring, colour, CONVOY_DASH), *end_square(corner, colour, succeeded))


def line_to(points: tuple[Point, ...], colour: str, dash: tuple[float, ...]) -> tuple[Shape, ...]:
    """A thin dark-cased line (a convoy) along ``points``."""
    return (Line(points, BOARD.ink, 4.2, dash), Line(points, colour, 2.0, dash))


def support_line(points: tuple[Point, ...], colour: str) -> tuple[Shape, ...]:
    """A support's line along ``points``: thin dashes of the supporter's colour, each on a
    light edge so it reads on any ground; no dark casing, which marks a move's arrow (a
    failed move's dark-cased dashes looked like a support's)."""
    return (Line(points, BOARD.halo, 3.6, SUPPORT_DASH), Line(points, colour, 2.0, SUPPORT_DASH))


def end_dot(at: Point, colour: str, succeeded: bool) -> tuple[Shape, ...]:
    """The end of a support: a small disc, hollow when the support failed (cut, void)."""
    return (Circle(at, 5.0, colour if succeeded else BOARD.halo, BOARD.ink, 1.6),)


def end_square(at: Point, colour: str, succeeded: bool) -> tuple[Shape, ...]:
    """The end of a convoy: a small square, hollow when the convoy failed."""
    x, y = at
    square = ((x - 4.5, y - 4.5), (x + 4.5, y - 4.5), (x + 4.5, y + 4.5), (x - 4.5, y + 4.5))
    return (Polygon((square,), colour if succeeded else BOARD.halo, BOARD.ink, 1.6),)


def cross(at: Point, size: float = 15.0) -> tuple[Shape, ...]:
    """A cross over a unit: destroyed, disbanded or removed."""
    x, y = at
    a = ((x - size, y - size), (x + size, y + size))
    b = ((x - size, y + size), (x + size, y - size))
    return (
        Line(a, BOARD.halo, 6.5),
        Line(b, BOARD.halo, 6.5),
        Line(a, BOARD.ink, 3.2),
        Line(b, BOARD.ink, 3.2),
    )


def hold_square(at: Point, r: float = UNIT_R + 3) -> tuple[Shape, ...]:
    """A hold: a square frame around the unit (``r`` from its centre to a side)."""
    x, y = at
    square = ((x - r, y - r), (x + r, y - r), (x + r, y + r), (x - r, y + r))
    return (Polygon((square,), None, BOARD.ink, 2.0),)


def build_ring(at: Point, r: float = UNIT_R + 4) -> tuple[Shape, ...]:
    """A new unit (a build): a dark ring on a white one around it."""
    return (
        Circle(at, r, None, BOARD.halo, 5.0),
        Circle(at, r, None, BOARD.ink, 2.2),
    )


def dislodged_ring(at: Point, r: float = UNIT_R + 3) -> tuple[Shape, ...]:
    """A dislodged unit's outline: a dashed ring on a white disc (drawn under the unit)."""
    x, y = at
    steps = 36
    ring = tuple(
        (x + r * math.cos(2 * math.pi * i / steps), y + r * math.sin(2 * math.pi * i / steps))
        for i in range(steps + 1)
    )
    return (
        Circle(at, r, BOARD.halo, None),
        Line(ring, BOARD.ink, 2.4, (4.0, 2.5)),
    )
