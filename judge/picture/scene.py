"""Engine values turned into the picture's groups of shapes: the board, the units, the
orders given and how they fared, the title and the legend.

:func:`build_scene` is the whole of it; :mod:`judge.picture.svg` and
:mod:`judge.picture.png` write the scene it returns.  Each piece of the picture is a
:class:`~judge.picture.shapes.Group` whose class and data say what it shows (a unit's
power, type and location; an order's kind, outcome and ends), so a test, or a reader of
the SVG, can find every unit and every order in it.
"""

from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from judge.engine.board import Map, ProvinceKind
from judge.engine.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
)
from judge.engine.phases import PhaseKind
from judge.engine.position import Position
from judge.engine.results import Note, OrderResult
from judge.engine.units import ARMY, FLEET, Unit
from judge.picture import marks
from judge.picture.geometry import Geometry, GeometryError, Point, Region, Ring
from judge.picture.names import labels
from judge.picture.palette import BOARD, PowerStyle, power_styles
from judge.picture.shapes import Circle, Group, Line, Polygon, Scene, Shape, Text

__all__ = ["LEGEND_HEIGHT", "MAP_WIDTH", "TITLE_HEIGHT", "build_scene"]

#: The picture's width in pixels: reads on a laptop, and on a phone zoomed.
MAP_WIDTH = 1200
#: The title band above the map and the legend band below it.
TITLE_HEIGHT = 46
LEGEND_HEIGHT = 74
#: Where a dislodged unit is drawn, from its province's unit point.
DISLODGED_OFFSET = (15.0, 12.0)
#: How far a dislodged unit is pushed on along the attack that dislodged it.
PUSHED = 26.0
#: How far each of two moves into each other's province is drawn aside, in pixels.
HEAD_TO_HEAD = 5.0
#: Where a supply centre's marker goes when it goes below its province's name.
CENTRE_OFFSET = (0.0, 14.0)
#: The radius of an owned centre's marker (a neutral one is a little smaller).
CENTRE_R = 6.5


#: The longest title and caption drawn, in characters: the two share one line.
TITLE_MAX = 48
CAPTION_MAX = 56


def _printable(text: str, most: int) -> str:
    """``text`` without the control characters no picture shows, cut to ``most``
    characters (the cut marked with ``...``)."""
    shown = "".join(ch for ch in text if ch.isprintable())
    return shown if len(shown) <= most else shown[: most - 3].rstrip() + "..."


def _ok(succeeded: bool) -> str:
    return "succeeded" if succeeded else "failed"


class _Builder:
    """The state of one scene being built: the map, the scale, the places of things."""

    def __init__(self, position: Position, geometry: Geometry) -> None:
        self.position = position
        self.map: Map = position.map
        self.geometry = geometry
        self.scale = MAP_WIDTH / geometry.width
        self.map_height = round(geometry.height * self.scale)
        self.styles: dict[str, PowerStyle] = power_styles(self.map.powers, self.map.power_letter)
        # Where each unit is drawn, by province (a dislodged unit moves aside).
        self.drawn: dict[str, Point] = {}

    # -- coordinates -------------------------------------------------------------------

    def point(self, p: Point) -> Point:
        return (p[0] * self.scale, TITLE_HEIGHT + p[1] * self.scale)

    def ring(self, ring: Ring) -> Ring:
        return tuple(self.point(p) for p in ring)

    def region(self, province: str) -> Region:
        region = self.geometry.provinces.get(province)
        if region is None:
            raise GeometryError(
                f"the geometry of map {self.map.name!r} has no province {province!r}"
            )
        return region

    def place(self, location: str) -> Point:
        """Where a unit at ``location`` stands (a coast's own point for a split coast)."""
        province, _, coast = location.partition("/")
        region = self.region(province)
        spot = region.coasts.get(coast) if coast else None
        return self.point(spot.unit if spot is not None else region.unit)

    def at(self, location: str) -> Point:
        """Where the unit of ``location``'s province is drawn (aside when dislodged)."""
        province = location.split("/", 1)[0]
        drawn = self.drawn.get(province)
        if drawn is not None:
            return drawn
        unit = self.position.units.get(province)
        return self.place(unit.location if unit is not None else location)

    def style(self, power: str) -> PowerStyle:
        style = self.styles.get(power)
        if style is None:  # a power the map does not list: drawn in the neutral ink
            style = PowerStyle(BOARD.ink, power[:1].upper() or "?", BOARD.halo, BOARD.land)
        return style


# -- the board --------------------------------------------------------------------------


def _board(b: _Builder) -> list[Group]:
    home_of: dict[str, str] = {}
    for power, provinces in b.map.home_country.items():
        for province in provinces:
            home_of[province] = power
    seas: list[Group] = []
    lands: list[Group] = []
    for province in b.map.provinces:
        region = b.region(province)
        kind = b.map.kind[province]
        rings = tuple(b.ring(r) for r in region.rings)
        if kind is ProvinceKind.SEA:
            seas.append(
                Group(
                    "province sea",
                    (Polygon(rings, BOARD.sea, BOARD.sea_border, 1.0),),
                    (("province", province),),
                )
            )
            continue
        if kind is ProvinceKind.IMPASSABLE:
            fill, cls = BOARD.impassable, "province impassable"
        elif province in home_of:
            fill, cls = b.style(home_of[province]).tint, "province land home"
        else:
            fill, cls = BOARD.land, "province land"
        data = [("province", province)]
        if province in home_of:
            data.append(("home", home_of[province]))
        lands.append(Group(cls, (Polygon(rings, fill, BOARD.border, 1.2),), tuple(data)))
    scenery = Group(
        "scenery",
        tuple(Polygon((b.ring(r),), BOARD.scenery, BOARD.border, 1.2) for r in b.geometry.scenery),
    )
    return [*seas, scenery, *lands]


def _names(b: _Builder) -> list[Group]:
    out: list[Group] = []
    for province, text in labels(b.map).items():
        sea = b.map.kind[province] is ProvinceKind.SEA
        out.append(
            Group(
                "name",
                (
                    Text(
                        b.point(b.region(province).label),
                        text,
                        12.5 if sea else 12.0,
                        BOARD.sea_name if sea else BOARD.land_name,
                        halo=BOARD.sea if sea else BOARD.halo,
                        halo_width=1.6,
                    ),
                ),
                (("province", province),),
            )
        )
    return out


Box = tuple[float, float, float, float]


def _text_box(text: Text) -> Box:
    """The box a centred name covers with its halo, roughly (the font's letters are
    about 0.6 of its size wide)."""
    half_w = 0.3 * text.size * len(text.text) + text.halo_width
    half_h = 0.5 * text.size + text.halo_width
    x, y = text.at
    return (x - half_w, y - half_h, x + half_w, y + half_h)


def _segment_meets_box(a: Point, c: Point, box: Box) -> bool:
    """Whether the segment a-c meets ``box`` (clipped against it, Liang-Barsky)."""
    x0, y0, x1, y1 = box
    t0, t1 = 0.0, 1.0
    dx, dy = c[0] - a[0], c[1] - a[1]
    for p, q in ((-dx, a[0] - x0), (dx, x1 - a[0]), (-dy, a[1] - y0), (dy, y1 - a[1])):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True


def _shape_meets_box(shape: Shape, box: Box) -> bool:
    x0, y0, x1, y1 = box
    if isinstance(shape, Line):
        w = shape.width / 2
        grown = (x0 - w, y0 - w, x1 + w, y1 + w)
        return any(_segment_meets_box(a, c, grown) for a, c in itertools.pairwise(shape.points))
    if isinstance(shape, Circle):
        r = shape.r + (shape.width / 2 if shape.stroke else 0.0)
        cx, cy = shape.centre
        nx, ny = min(max(cx, x0), x1), min(max(cy, y0), y1)
        return math.hypot(cx - nx, cy - ny) < r
    if isinstance(shape, Polygon):
        xs = [p[0] for ring in shape.rings for p in ring]
        ys = [p[1] for ring in shape.rings for p in ring]
        return min(xs) < x1 and max(xs) > x0 and min(ys) < y1 and max(ys) > y0
    # A unit's letter: as its box.
    tx0, ty0, tx1, ty1 = _text_box(shape)
    return tx0 < x1 and tx1 > x0 and ty0 < y1 and ty1 > y0


def _shape_box(shape: Shape) -> Box:
    """The box ``shape`` covers (a line with its width, a circle with its stroke)."""
    if isinstance(shape, Text):
        return _text_box(shape)
    if isinstance(shape, Circle):
        r = shape.r + (shape.width / 2 if shape.stroke else 0.0)
        return (shape.centre[0] - r, shape.centre[1] - r, shape.centre[0] + r, shape.centre[1] + r)
    points = shape.points if isinstance(shape, Line) else [p for g in shape.rings for p in g]
    w = shape.width / 2
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return (min(xs) - w, min(ys) - w, max(xs) + w, max(ys) + w)


def _names_over(board: Sequence[Group], groups: Sequence[Group]) -> list[Group]:
    """The province names that a mark of ``groups`` (an order, a unit) crosses, drawn
    again over them: the board's names are drawn first, under everything, and a player
    must read every name."""
    # Each shape's box once; the exact test only where the boxes meet.
    shapes = [(_shape_box(s), s) for g in groups for s in g.items]
    out: list[Group] = []
    for name in board:
        if name.cls != "name" or not isinstance(name.items[0], Text):
            continue
        box = _text_box(name.items[0])
        x0, y0, x1, y1 = box
        if any(
            sx0 < x1 and sx1 > x0 and sy0 < y1 and sy1 > y0 and _shape_meets_box(shape, box)
            for (sx0, sy0, sx1, sy1), shape in shapes
        ):
            out.append(Group("name-over", name.items, name.data))
    return out


def _inside(p: Point, ring: Ring) -> bool:
    """Whether ``p`` is inside ``ring`` (even-odd rule)."""
    x, y = p
    inside = False
    for (x0, y0), (x1, y1) in zip(ring, (*ring[1:], ring[0]), strict=True):
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside


def _centre_spot(b: _Builder, province: str, name: str, others: Sequence[Box] = ()) -> Point:
    """Where a centre's marker goes: beside its province's name, on the first side (after
    it, below, before, above) that is in the province, clear of where its units stand
    and off the names ``others`` of the other provinces."""
    region = b.region(province)
    x, y = b.point(region.label)
    half = 0.31 * 12.0 * len(name) + 10  # half the name's width, roughly, and a gap
    units = [b.point(region.unit), *(b.point(c.unit) for c in region.coasts.values())]
    rings = [b.ring(r) for r in region.rings]
    candidates = [(x + half, y), (x, y + CENTRE_OFFSET[1]), (x - half, y), (x, y - 14.0)]

    def clearance(p: Point) -> float:
        return min(math.hypot(p[0] - u[0], p[1] - u[1]) for u in units)

    for spot in candidates:
        if (
            clearance(spot) >= marks.UNIT_R + 9
            and any(_inside(spot, r) for r in rings)
            and all(_box_gap(spot, box) >= CENTRE_R + 5 for box in others)
        ):
            return spot
    return max(candidates, key=clearance)


def _centres(b: _Builder, owners: Position) -> list[Group]:
    out: list[Group] = []
    spots = _static(b).centre_spots
    for province in sorted(b.map.supply_centres):
        at = spots[province]
        owner = owners.centres.get(province)
        if owner is None:
            items: tuple[Shape, ...] = (
                Circle(at, 5.5, BOARD.neutral_centre, BOARD.ink, 1.4),
                Circle(at, 1.8, BOARD.ink, None),
            )
            data: tuple[tuple[str, str], ...] = (("province", province), ("owner", ""))
        else:
            style = b.style(owner)
            items = (
                Circle(at, CENTRE_R, style.fill, BOARD.ink, 1.3),
                Text((at[0], at[1] + 0.3), style.letter, 8.5, style.ink),
            )
            data = (("province", province), ("owner", owner))
        out.append(Group("centre", items, data))
    return out


# -- units ------------------------------------------------------------------------------


def _unit_data(unit: Unit) -> tuple[tuple[str, str], ...]:
    return (("power", unit.power), ("type", unit.type.word.lower()), ("location", unit.location))


def _unit(b: _Builder, unit: Unit, cls: str = "unit") -> Group:
    at = b.place(unit.location)
    return Group(cls, marks.unit(at, unit.type is FLEET, b.style(unit.power)), _unit_data(unit))


def _border_gap(p: Point, rings: Sequence[Ring]) -> float:
    """How far ``p`` is from the nearest edge of ``rings``."""
    best = math.inf
    for ring in rings:
        for a, c in zip(ring, (*ring[1:], ring[0]), strict=True):
            dx, dy = c[0] - a[0], c[1] - a[1]
            length2 = dx * dx + dy * dy
            t = 0.0 if length2 == 0 else ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2
            t = min(max(t, 0.0), 1.0)
            best = min(best, math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy))
    return best


def _box_gap(p: Point, box: Box) -> float:
    """How far ``p`` is from ``box`` (0 inside it)."""
    x0, y0, x1, y1 = box
    return math.hypot(p[0] - min(max(p[0], x0), x1), p[1] - min(max(p[1], y0), y1))


def _dislodged_unit(b: _Builder, unit: Unit, attacker: str | None) -> Group:
    """A dislodged unit, drawn aside: pushed on along the attack when the attacker is
    known (so the attacker's arrow points at it without covering it), else down and to
    the right; turned aside, or pushed less or more, when that spot would put its ring
    out of its province, on another unit or on the province's name (a small province
    such as Tyrolia has little room: the spot that fits best is taken)."""
    x, y = b.place(unit.location)
    dx, dy = DISLODGED_OFFSET
    if attacker is not None and attacker in b.geometry.provinces:
        ax, ay = b.place(attacker)
        if math.hypot(x - ax, y - ay) > 0:
            dx, dy = x - ax, y - ay
    heading = math.atan2(dy, dx)
    # Every other unit drawn: in a retreat phase, the attacker stands in the province.
    others = [b.place(u.location) for u in b.position.units.values() if u != unit]
    others.extend(b.drawn.values())
    region = b.region(unit.province)
    rings = [b.ring(r) for r in region.rings]
    name = _name_box(b, unit.province)
    ring_r = marks.UNIT_R + 3  # the dislodged ring's radius
    best = -math.inf  # the best fit so far

    def fit(p: Point) -> float:
        """How well the ring fits at ``p``: at least 0 when it is wholly in the
        province, clear of the other units and off the name."""
        if not any(_inside(p, r) for r in rings):
            return -math.inf
        clear = min((math.hypot(p[0] - o[0], p[1] - o[1]) for o in others), default=1e9)
        cheap = min(clear - 2 * marks.UNIT_R, _box_gap(p, name) - ring_r + 1)
        # The border's gap (the dearest) only matters when it could be the least.
        return min(cheap, _border_gap(p, rings) - (ring_r - 2)) if cheap > best else cheap

    # Along the attack first, then turned further and further aside (every 30
    # degrees), pushed the usual length, less, then more.
    turns = [0.0, *(sign * k * math.pi / 6 for k in range(1, 6) for sign in (1, -1)), math.pi]
    spots = [
        (x + reach * math.cos(heading + turn), y + reach * math.sin(heading + turn))
        for reach in (PUSHED, 20.0, 32.0, 14.0, 40.0, 50.0, 60.0)
        for turn in turns
    ]
    at = spots[0]
    for spot in spots:
        score = fit(spot)
        if score >= 0:
            at = spot
            break
        if score > best:
            at, best = spot, score
    b.drawn[unit.province] = at
    shapes = (*marks.dislodged_ring(at), *marks.unit(at, unit.type is FLEET, b.style(unit.power)))
    return Group("unit dislodged", shapes, _unit_data(unit))


def _name_box(b: _Builder, province: str) -> Box:
    """The box the province's name covers on the board."""
    for group in _static(b).board:
        if group.cls == "name" and group.data == (("province", province),):
            text = group.items[0]
            if isinstance(text, Text):
                return _text_box(text)
    x, y = b.point(b.region(province).label)
    return (x, y, x, y)


def _retreat_options(b: _Builder, unit: Unit, retreats: Sequence[str]) -> list[Group]:
    start = b.drawn.get(unit.province) or b.place(unit.location)
    out: list[Group] = []
    for location in retreats:
        path = marks.shorten((start, b.place(location)), marks.UNIT_R + 3, marks.UNIT_R - 2)
        shapes = marks.option_arrow(path, b.style(unit.power).fill)
        out.append(
            Group(
                "retreat-option",
                shapes,
                (("power", unit.power), ("from", unit.location), ("to", location)),
            )
        )
    return out


def _aside(path: tuple[Point, ...], by: float) -> tuple[Point, ...]:
    """The two-point ``path`` moved ``by`` pixels to its right (y grows downwards)."""
    (x0, y0), (x1, y1) = path[0], path[-1]
    length = math.hypot(x1 - x0, y1 - y0) or 1.0
    nx, ny = -(y1 - y0) / length * by, (x1 - x0) / length * by
    return tuple((x + nx, y + ny) for x, y in path)


def _towards(a: Point, b: Point, t: float) -> Point:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


# -- orders ------------------------------------------------------------------------------


def _foot(p: Point, a: Point, c: Point) -> Point:
    """The point of the segment a-c nearest to p, kept off its ends."""
    dx, dy = c[0] - a[0], c[1] - a[1]
    length2 = dx * dx + dy * dy
    t = 0.5 if length2 == 0 else ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2
    t = min(max(t, 0.2), 0.8)
    return (a[0] + dx * t, a[1] + dy * t)


def _order_group(kind: str, result: OrderResult, items: tuple[Shape, ...], **data: str) -> Group:
    cls = f"order {kind} {_ok(result.success)}" + (" default" if result.default else "")
    facts = (("power", result.power), ("from", result.order.location), *data.items())
    return Group(cls, items, tuple(facts))


class _Orders:
    """The marks of the results, in layers: holds, supports and convoys, moves, crosses."""

    def __init__(self, b: _Builder, results: Sequence[OrderResult]) -> None:
        self.b = b
        self.under: list[Group] = []
        self.moves: list[Group] = []
        self.over: list[Group] = []
        # The moves, as (from, to) provinces: two units moving into each other's province
        # would draw one arrow over the other, so each is drawn a little to its right.
        self.moving = {
            (r.order.province, b.map.province_of(r.order.destination))
            for r in results
            if isinstance(r.order, Move)
        }

    def colour(self, result: OrderResult) -> str:
        return self.b.style(result.power).fill

    def move_line(self, source: str, destination: str) -> tuple[Point, Point]:
        return (self.b.at(source), self.b.place(destination))

    def add(self, result: OrderResult) -> None:
        order = result.order
        b = self.b
        if isinstance(order, Hold):
            if not result.default:
                self.under.append(
                    _order_group("hold", result, marks.hold_square(b.at(order.location)))
                )
        elif isinstance(order, Move | Retreat):
            self.move(result, order)
        elif isinstance(order, SupportHold):
            start, end = b.at(order.location), b.at(order.target)
            path = marks.shorten((start, end), marks.UNIT_R, marks.UNIT_R + 4)
            items = (
                *marks.support_line(path, self.colour(result)),
                *marks.end_dot(path[-1], self.colour(result), result.success),
            )
            self.under.append(_order_group("support", result, items, target=order.target))
        elif isinstance(order, SupportMove | Convoy):
            a, c = self.move_line(order.target, order.destination)
            start = b.at(order.location)
            if isinstance(order, SupportMove):
                end = _towards(a, c, 0.55)
                path = marks.shorten((start, end), marks.UNIT_R, 5.0)
                items = (
                    *marks.support_line(path, self.colour(result)),
                    *marks.end_dot(path[-1], self.colour(result), result.success),
                )
                kind = "support"
            else:
                end = _foot(start, a, c)
                kind = "convoy"
                if math.hypot(end[0] - start[0], end[1] - start[1]) < marks.UNIT_R + 12:
                    # The fleet stands on the army's way: a line to it would not show.
                    items = marks.convoy_ring(start, self.colour(result), result.success)
                else:
                    path = marks.shorten((start, end), marks.UNIT_R, 4.5)
                    items = (
                        *marks.line_to(path, self.colour(result), marks.CONVOY_DASH),
                        *marks.end_square(path[-1], self.colour(result), result.success),
                    )
            self.under.append(
                _order_group(kind, result, items, target=order.target, to=order.destination)
            )
        elif isinstance(order, Disband | Remove):
            kind = "disband" if isinstance(order, Disband) else "remove"
            self.over.append(_order_group(kind, result, marks.cross(b.at(order.location))))
        elif isinstance(order, Build) and result.success:
            # The engine builds an army when the order named no type.
            unit = Unit(result.power, order.unit_type or ARMY, order.location)
            at = b.place(order.location)
            items = (
                *marks.build_ring(at),
                *marks.unit(at, unit.type is FLEET, b.style(unit.power)),
            )
            self.over.append(_order_group("build", result, items, type=unit.type.word.lower()))
        # Waives and proxies change nothing on the board: not drawn.

    def move(self, result: OrderResult, order: Move | Retreat) -> None:
        b = self.b
        start = b.at(order.location)
        end = b.place(order.destination)
        # The head stops short of a unit standing there; a unit dislodged there is drawn
        # aside, so the head may come close.
        aside = order.destination.split("/", 1)[0] in b.drawn and isinstance(order, Move)
        path = marks.shorten((start, end), marks.UNIT_R, 5.0 if aside else marks.UNIT_R)
        target = b.map.province_of(order.destination)
        if isinstance(order, Move) and (target, order.province) in self.moving:
            path = _aside(path, HEAD_TO_HEAD)
        kind = "move" if isinstance(order, Move) else "retreat"
        if isinstance(order, Move) and order.via_convoy:  # the engine marks a convoyed move
            kind += " convoyed"
        items = marks.arrow(path, self.colour(result), result.success)
        self.moves.append(_order_group(kind, result, items, to=order.destination))
        if isinstance(order, Retreat) and not result.success:
            # A retreat that bounced disbands the unit.
            self.over.append(
                Group("destroyed", marks.cross(start), (("location", order.location),))
            )


# -- the title and the legend ----------------------------------------------------------


def _title(b: _Builder, title: str, caption: str) -> Group:
    band = (
        (0.0, 0.0),
        (float(MAP_WIDTH), 0.0),
        (float(MAP_WIDTH), float(TITLE_HEIGHT)),
        (0.0, float(TITLE_HEIGHT)),
    )
    y = TITLE_HEIGHT / 2
    return Group(
        "title",
        (
            Polygon((band,), BOARD.band),
            Line(
                ((0.0, TITLE_HEIGHT - 0.5), (float(MAP_WIDTH), TITLE_HEIGHT - 0.5)), BOARD.ink, 1.0
            ),
            Text((16.0, y), title, 21.0, BOARD.band_text, anchor="start"),
            Text((MAP_WIDTH - 16.0, y), caption, 17.0, BOARD.band_text, anchor="end"),
        ),
        (("title", title), ("caption", caption)),
    )


def _legend(b: _Builder, counts: Position) -> list[Group]:
    top = TITLE_HEIGHT + b.map_height
    band = (
        (0.0, float(top)),
        (float(MAP_WIDTH), float(top)),
        (float(MAP_WIDTH), float(top + LEGEND_HEIGHT)),
        (0.0, float(top + LEGEND_HEIGHT)),
    )
    out = [
        Group(
            "legend",
            (
                Polygon((band,), BOARD.band),
                Line(((0.0, top + 0.5), (float(MAP_WIDTH), top + 0.5)), BOARD.ink, 1.0),
            ),
        )
    ]
    powers = b.map.powers
    column = (MAP_WIDTH - 24) / max(1, len(powers))
    y = top + 21.0
    for i, power in enumerate(powers):
        x = 12.0 + i * column
        centres = sum(1 for owner in counts.centres.values() if owner == power)
        # A dislodged unit waiting for its retreat still counts: it is not lost yet.
        units = sum(1 for u in counts.units.values() if u.power == power) + sum(
            1 for d in counts.dislodged.values() if d.unit.power == power
        )
        style = b.style(power)
        out.append(
            Group(
                "legend-power",
                (
                    Circle((x + 11, y), 10.0, style.fill, BOARD.ink, 1.3),
                    Text((x + 11, y + 0.5), style.letter, 12.0, style.ink),
                    Text((x + 27, y - 8), power, 14.0, BOARD.band_text, anchor="start"),
                    # The counts in words: "3/5" left the reader to guess which is which.
                    Text(
                        (x + 27, y + 9),
                        f"{_count(centres, 'centre')}, {_count(units, 'unit')}",
                        12.0,
                        BOARD.band_text,
                        anchor="start",
                    ),
                ),
                (("power", power), ("centres", str(centres)), ("units", str(units))),
            )
        )
    out.append(_key(b, top + 54.0))
    return out


def _count(n: int, word: str) -> str:
    """``n`` things called ``word``: "1 centre", "3 centres"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _key(b: _Builder, y: float) -> Group:
    """The key of the signs: what each shape and line means."""
    # The key's lines in a grey that is no power's colour, so it suggests none.
    grey = BOARD.key
    # The row holds signs only: a word at its start would read as a sign's label.
    items: list[Shape] = []
    x = 12.0
    sample = PowerStyle("#FFFFFF", "", BOARD.ink, BOARD.land)

    def label(text: str, width: float) -> None:
        nonlocal x
        items.append(Text((x, y), text, 12.0, BOARD.band_text, anchor="start"))
        x += width

    items.extend(marks.unit((x + 10, y), False, sample, 0.8))
    x += 24
    label("army", 44)
    items.extend(marks.unit((x + 12, y), True, sample, 0.8))
    x += 28
    label("fleet", 44)
    items.append(Circle((x + 6, y), 5.5, BOARD.neutral_centre, BOARD.ink, 1.4))
    items.append(Circle((x + 6, y), 1.8, BOARD.ink, None))
    x += 16
    label("centre", 58)
    items.extend(marks.arrow(((x, y), (x + 34, y)), grey, True, width=2.4, head=10.0))
    x += 40
    label("move", 44)
    items.extend(marks.arrow(((x, y), (x + 34, y)), grey, False, width=2.4, head=10.0))
    x += 40
    label("failed", 50)
    items.extend(marks.support_line(((x, y), (x + 26, y)), grey))
    items.extend(marks.end_dot((x + 28, y), grey, True))
    x += 38
    label("support", 62)
    items.extend(marks.line_to(((x, y), (x + 26, y)), grey, marks.CONVOY_DASH))
    items.extend(marks.end_square((x + 28, y), grey, True))
    x += 38
    label("convoy", 58)
    items.extend(marks.dislodged_ring((x + 10, y), 11.0))
    items.extend(marks.unit((x + 10, y), False, sample, 0.8))
    x += 26
    label("dislodged", 74)
    items.extend(marks.option_arrow(((x, y), (x + 30, y)), grey))
    x += 36
    label("retreat option", 98)
    items.extend(marks.unit((x + 8, y), False, sample, 0.8))
    items.extend(marks.cross((x + 8, y), 8.0))
    x += 22
    label("destroyed, removed", 132)
    items.extend(marks.build_ring((x + 10, y), 11.5))
    items.extend(marks.unit((x + 10, y), False, sample, 0.8))
    x += 26
    label("built", 42)
    items.extend(marks.hold_square((x + 10, y), 10.0))
    items.extend(marks.unit((x + 10, y), False, sample, 0.8))
    x += 26
    label("hold", 40)
    return Group("legend-key", tuple(items))


# -- the whole ---------------------------------------------------------------------------


def build_scene(
    position: Position,
    results: Sequence[OrderResult],
    after: Position | None,
    geometry: Geometry,
    *,
    title: str,
    caption: str = "",
) -> Scene:
    """The scene of ``position``'s phase drawn with ``geometry`` (see
    :func:`judge.picture.draw` for what each argument means)."""
    # The caller's words, shown as given, less the control characters no picture shows.
    title, caption = _printable(title, TITLE_MAX), _printable(caption, CAPTION_MAX)
    b = _Builder(position, geometry)
    counts = after if after is not None else position
    groups: list[Group] = _centres(b, counts)

    orders = _Orders(b, results)
    # The dislodged units, by province, with the province their attacker came from.
    dislodged_here: dict[str, tuple[Unit, str | None]] = {}
    if position.phase.kind is PhaseKind.MOVEMENT:
        for result in results:
            unit = position.units.get(result.order.province)
            for reason in result.reasons:
                if reason.note is Note.DISLODGED and unit is not None:
                    dislodged_here[unit.province] = (unit, reason.culprit)
    elif position.phase.kind is PhaseKind.RETREAT:
        dislodged_here = {p: (d.unit, d.attacker) for p, d in position.dislodged.items()}

    units = [
        _unit(b, u)
        for u in sorted(position.units.values(), key=lambda u: u.location)
        if u.province not in dislodged_here or position.phase.kind is PhaseKind.RETREAT
    ]
    dislodged: list[Group] = []
    options: list[Group] = []
    crosses: list[Group] = []
    for province in sorted(dislodged_here):
        unit, attacker = dislodged_here[province]
        dislodged.append(_dislodged_unit(b, unit, attacker))
        if position.phase.kind is PhaseKind.RETREAT:
            if not results:
                options.extend(_retreat_options(b, unit, position.dislodged[province].retreats))
        elif after is not None:
            entry = after.dislodged.get(province)
            if entry is not None and entry.unit == unit:
                options.extend(_retreat_options(b, unit, entry.retreats))
            else:
                crosses.append(
                    Group(
                        "destroyed", marks.cross(b.drawn[province]), (("location", unit.location),)
                    )
                )
    for result in results:
        orders.add(result)
    # In layers: the dislodged units, drawn aside and clear of the names, under the
    # lines that end on them (the attack, its supports); the orders' lines and arrows;
    # the names they cross, drawn again over them; the units over those names (a name
    # drawn over a unit hid its letter); the new units and the crosses over the units
    # they cross out.
    groups.extend(dislodged)
    lines = [*orders.under, *orders.moves, *options]
    groups.extend(lines)
    groups.extend(_names_over(_static(b).board, lines))
    groups.extend(units)
    built = [g for g in orders.over if "build" in g.cls.split()]
    groups.extend(built)
    groups.extend(g for g in orders.over if g not in built)
    groups.extend(crosses)
    groups.append(_title(b, title, caption))
    groups.extend(_legend(b, counts))
    return Scene(
        MAP_WIDTH,
        TITLE_HEIGHT + b.map_height + LEGEND_HEIGHT,
        BOARD.sea,
        _static(b).board,
        tuple(groups),
        f"{title} {caption}".strip(),
    )


@dataclass(frozen=True)
class _Static:
    """What is the same in every picture of a map: the board's groups (provinces and
    names) and where the centres' markers go."""

    geometry: Geometry
    board: tuple[Group, ...]
    centre_spots: dict[str, Point]


#: The maps drawn lately, by what their board is made of (see :func:`_static`).
_STATIC: dict[tuple[object, ...], _Static] = {}
_STATIC_KEPT = 8
_STATIC_LOCK = threading.Lock()


def _static(b: _Builder) -> _Static:
    """The board of ``b``'s map, built once: the same tuple handed to every scene (so the
    PNG writer keeps it drawn)."""
    game_map = b.map
    key: tuple[object, ...] = (
        id(b.geometry),
        game_map.name,
        tuple((p, game_map.kind[p], game_map.province_name[p]) for p in game_map.provinces),
        tuple(sorted((w, tuple(sorted(h))) for w, h in game_map.home_country.items())),
        tuple(sorted(game_map.supply_centres)),
        tuple((w, b.styles[w].tint) for w in game_map.powers),
    )
    with _STATIC_LOCK:  # pictures may be drawn in several threads of the judge
        kept = _STATIC.get(key)
        # The geometry is kept with its board, so its id() is not reused while it is here.
        if kept is not None and kept.geometry is b.geometry:
            return kept
        names = labels(game_map)
        name_groups = _names(b)
        boxes = {
            dict(g.data)["province"]: _text_box(g.items[0])
            for g in name_groups
            if isinstance(g.items[0], Text)
        }
        static = _Static(
            b.geometry,
            (*_board(b), *name_groups),
            {
                p: _centre_spot(b, p, names[p], [v for k, v in boxes.items() if k != p])
                for p in sorted(game_map.supply_centres)
            },
        )
        if len(_STATIC) >= _STATIC_KEPT:
            del _STATIC[next(iter(_STATIC))]
        _STATIC[key] = static
        return static
