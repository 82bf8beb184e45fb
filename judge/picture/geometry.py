"""The map's geometry: where each province, coast, label and unit is drawn.

The geometry of a map is the project's own data, in the map's data folder beside its map
file: ``judge/engine/maps/<name>.geometry.json`` for ``<name>.map``.  The engine never
reads it; only this add-on does.  The file is JSON of this shape (coordinates are pixels
of a canvas ``width`` x ``height``, x to the right, y down)::

    {
      "format": 1,
      "map": "standard",
      "width": 1200, "height": 1000,
      "source": "how the data was made (a sentence)",
      "provinces": {
        "boh": {
          "rings": [[[x, y], [x, y], ...], ...],   # the province's area: one ring per
                                                     # piece (an island is a piece), closed
                                                     # implicitly, no holes
          "label": [x, y],                         # centre of its name
          "unit": [x, y],                          # centre of a unit standing there (an
                                                     # army, or a fleet on a single coast)
          "coasts": {                              # split-coast provinces only
            "nc": {"line": [[x, y], ...],          # the stretch of shore of that coast
                   "unit": [x, y]}                 # centre of a fleet on that coast
          }
        },
        ...
      },
      "scenery": [[[x, y], ...], ...]              # land that is no province (islands
                                                   # such as Ireland or Sardinia): drawn,
                                                   # never named
    }

Every province of the map has an entry (Switzerland too: it is drawn, though no unit
stands there, so its ``unit`` is its label point); sea provinces cover the water, and
provinces and scenery together cover the canvas.  Rings have no holes, so a sea's rings
also cover the islands inside it (scenery, or a province's island such as Zealand): draw
the seas first, then the land provinces and the scenery over them.  Neighbouring
provinces share exactly the same border points.  :func:`check_geometry` tells what is
missing or inconsistent with the map file.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from judge.engine.board import Map, ProvinceKind

__all__ = [
    "Coast",
    "Geometry",
    "GeometryError",
    "Point",
    "Region",
    "Ring",
    "adjacent_pairs",
    "check_geometry",
    "geometry_from_json",
    "load_geometry",
]

#: A point on the canvas, in pixels.
Point = tuple[float, float]
#: A closed polygon (the last point joins the first).
Ring = tuple[Point, ...]


class GeometryError(ValueError):
    """A geometry file that is missing, not valid JSON, or not of the documented shape."""


@dataclass(frozen=True, slots=True)
class Coast:
    """One coast of a split-coast province: its stretch of shore and its fleet's place."""

    line: tuple[Point, ...]
    unit: Point


@dataclass(frozen=True, slots=True)
class Region:
    """One province's drawing: its area, where its name goes, where its unit stands."""

    rings: tuple[Ring, ...]
    label: Point
    unit: Point
    coasts: Mapping[str, Coast]


@dataclass(frozen=True, slots=True)
class Geometry:
    """A whole map's drawing data (see the module docstring for the file)."""

    map_name: str
    width: float
    height: float
    source: str
    provinces: Mapping[str, Region]
    scenery: tuple[Ring, ...]


def _point(value: Any, where: str) -> Point:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    ):
        raise GeometryError(f"{where}: a point is [x, y], got {str(value)[:40]!r}")
    return (float(value[0]), float(value[1]))


def _points(value: Any, where: str) -> tuple[Point, ...]:
    if not isinstance(value, list):
        raise GeometryError(f"{where}: expected a list of points")
    return tuple(_point(p, f"{where}[{i}]") for i, p in enumerate(value))


def _rings(value: Any, where: str) -> tuple[Ring, ...]:
    if not isinstance(value, list):
        raise GeometryError(f"{where}: expected a list of rings")
    rings = tuple(_points(r, f"{where}[{i}]") for i, r in enumerate(value))
    for i, ring in enumerate(rings):
        if len(ring) < 3:
            raise GeometryError(f"{where}[{i}]: a ring needs three points at least")
    return rings


def geometry_from_json(doc: Any) -> Geometry:
    """A :class:`Geometry` from the parsed JSON ``doc``; :class:`GeometryError` if it is
    not of the documented shape (whether it fits a map is :func:`check_geometry`'s)."""
    if not isinstance(doc, dict) or doc.get("format") != 1:
        raise GeometryError("not a geometry file of format 1")
    provinces: dict[str, Region] = {}
    raw = doc.get("provinces")
    if not isinstance(raw, dict):
        raise GeometryError("'provinces' must be an object")
    for key, entry in raw.items():
        where = f"provinces.{key}"
        if not isinstance(entry, dict):
            raise GeometryError(f"{where}: expected an object")
        coasts: dict[str, Coast] = {}
        raw_coasts = entry.get("coasts", {})
        if not isinstance(raw_coasts, dict):
            raise GeometryError(f"{where}.coasts: expected an object")
        for code, coast in raw_coasts.items():
            if not isinstance(coast, dict):
                raise GeometryError(f"{where}.coasts.{code}: expected an object")
            coasts[str(code)] = Coast(
                _points(coast.get("line"), f"{where}.coasts.{code}.line"),
                _point(coast.get("unit"), f"{where}.coasts.{code}.unit"),
            )
        provinces[str(key)] = Region(
            _rings(entry.get("rings"), f"{where}.rings"),
            _point(entry.get("label"), f"{where}.label"),
            _point(entry.get("unit"), f"{where}.unit"),
            coasts,
        )
    width, height = doc.get("width"), doc.get("height")
    if not isinstance(width, int | float) or not isinstance(height, int | float):
        raise GeometryError("'width' and 'height' must be numbers")
    return Geometry(
        map_name=str(doc.get("map", "")),
        width=float(width),
        height=float(height),
        source=str(doc.get("source", "")),
        provinces=provinces,
        scenery=_rings(doc.get("scenery", []), "scenery"),
    )


@functools.cache
def _load(name: str) -> Geometry:
    path = resources.files("judge.engine").joinpath("maps", f"{name}.geometry.json")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GeometryError(f"the map {name!r} has no geometry file, so no picture") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GeometryError(f"{name}.geometry.json is not valid JSON: {exc}") from None
    return geometry_from_json(doc)


def load_geometry(game_map: Map) -> Geometry:
    """The geometry of ``game_map`` (read once, then cached); :class:`GeometryError` if
    the map has none or it is malformed."""
    return _load(game_map.name.strip().lower())


#: Two shapes whose common boundary is shorter than this (pixels) meet at a corner at
#: most; adjacent provinces must share at least this much border.
BORDER_MIN = 5.0
#: How close (pixels) a point of one outline must lie to another's to be on their border.
_ON_BORDER = 0.5
#: Spacing (pixels) of the points sampled along outlines to measure common borders.
_SAMPLE_STEP = 1.0
_BUCKET = 8.0

Segment = tuple[Point, Point]


def check_geometry(geometry: Geometry, game_map: Map) -> list[str]:
    """Every way ``geometry`` does not fit ``game_map``, one readable sentence each (an
    empty list when it fits).

    Checked: every province of the map has a shape, and its label and unit points (and
    each coast's fleet point) lie inside it; every coast of the map has a line and a
    fleet point, and there is no coast or province the map lacks; every point lies on
    the canvas; provinces adjacent in the map file (army or fleet, coasts folded into
    their province) share a border of at least :data:`BORDER_MIN` pixels, and provinces
    that are not adjacent share none that long (a corner is allowed; an impassable
    province such as Switzerland borders whatever it borders).
    """
    problems: list[str] = []
    regions = geometry.provinces
    for prov in game_map.provinces:
        name = f"{prov} ({game_map.province_name[prov]})"
        region = regions.get(prov)
        if region is None:
            problems.append(f"{name} has no shape in the geometry")
            continue
        if not region.rings:
            problems.append(f"{name} has an entry but no rings")
            continue
        for what, point in (("label", region.label), ("unit", region.unit)):
            if not _inside(point, region.rings):
                problems.append(f"the {what} point {_show(point)} of {name} is not inside it")
        wanted = {loc.split("/", 1)[1] for loc in game_map.coasts.get(prov, ())}
        for code in sorted(wanted - set(region.coasts)):
            problems.append(f"{prov}/{code} has no coast line and fleet point in the geometry")
        for code in sorted(set(region.coasts) - wanted):
            problems.append(f"{name} has a coast {code!r} in the geometry that the map lacks")
        for code in sorted(wanted & set(region.coasts)):
            coast = region.coasts[code]
            if len(coast.line) < 2:
                problems.append(f"the coast line of {prov}/{code} has fewer than two points")
            if not _inside(coast.unit, region.rings):
                problems.append(
                    f"the fleet point {_show(coast.unit)} of {prov}/{code} is not inside {name}"
                )
    for prov in sorted(set(regions) - set(game_map.provinces)):
        problems.append(f"the geometry has a province {prov!r} that the map lacks")
    problems.extend(_off_canvas(geometry))
    problems.extend(_border_problems(geometry, game_map))
    return problems


def _show(point: Point) -> str:
    return f"({point[0]:g}, {point[1]:g})"


def _inside(point: Point, rings: tuple[Ring, ...]) -> bool:
    """Whether ``point`` lies in one of ``rings`` (ray casting)."""
    x, y = point
    for ring in rings:
        inside = False
        for (x0, y0), (x1, y1) in zip(ring, (*ring[1:], ring[0]), strict=True):
            if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
                inside = not inside
        if inside:
            return True
    return False


def _off_canvas(geometry: Geometry) -> Iterator[str]:
    """One sentence per province (and for the scenery) with a point off the canvas."""
    w, h = geometry.width, geometry.height

    def points(region: Region) -> Iterator[Point]:
        for ring in region.rings:
            yield from ring
        yield region.label
        yield region.unit
        for coast in region.coasts.values():
            yield from coast.line
            yield coast.unit

    named = [(f"province {prov}", points(region)) for prov, region in geometry.provinces.items()]
    named.append(("the scenery", (p for ring in geometry.scenery for p in ring)))
    for what, pts in named:
        for x, y in pts:
            if not (0 <= x <= w and 0 <= y <= h):
                yield f"a point {_show((x, y))} of {what} lies off the {w:g} x {h:g} canvas"
                break


def adjacent_pairs(game_map: Map) -> set[tuple[str, str]]:
    """The pairs of provinces an army or a fleet can move between (coasts folded to their
    province), each written once, in alphabetical order: the borders a drawing must have.

    >>> from judge.engine.board import standard_map
    >>> pairs = adjacent_pairs(standard_map())
    >>> ("bul", "con") in pairs, ("bla", "bul") in pairs, ("naf", "spa") in pairs
    (True, True, False)
    """
    adjacent: set[tuple[str, str]] = set()
    for table in (game_map.army_adj, game_map.fleet_adj):
        for loc, dests in table.items():
            for dest in dests:
                a, b = game_map.province_of(loc), game_map.province_of(dest)
                adjacent.add((min(a, b), max(a, b)))
    return adjacent


def _border_problems(geometry: Geometry, game_map: Map) -> Iterator[str]:
    """Adjacent provinces that do not touch; provinces that touch but are not adjacent."""
    adjacent = adjacent_pairs(game_map)
    shared = shared_borders(geometry)
    for a, b in sorted(adjacent):
        if a in geometry.provinces and b in geometry.provinces:
            length = shared.get((a, b), 0.0)
            if length < BORDER_MIN:
                yield (
                    f"{a} and {b} are adjacent on the map but their shapes do not touch"
                    f" (common border {length:.1f} px, at least {BORDER_MIN:g} needed)"
                )
    impassable = {p for p, kind in game_map.kind.items() if kind is ProvinceKind.IMPASSABLE}
    for (a, b), length in sorted(shared.items()):
        if (a, b) in adjacent or a in impassable or b in impassable:
            continue
        if a in game_map.kind and b in game_map.kind and length >= BORDER_MIN:
            yield (f"{a} and {b} share {length:.0f} px of border but are not adjacent on the map")


def shared_borders(geometry: Geometry) -> dict[tuple[str, str], float]:
    """For each pair of provinces (in name order) whose outlines run together, the
    length in pixels of their common border.

    Points are sampled every :data:`_SAMPLE_STEP` pixels along each outline; a sample
    counts towards a border when it lies within :data:`_ON_BORDER` pixels of a roughly
    parallel edge of another province and its foot falls on that edge (so outlines that
    merely meet at a corner share nothing).  The longer of the two measures (from either
    side) is kept.
    """
    buckets: dict[tuple[int, int], list[tuple[str, Segment]]] = {}
    for prov, region in geometry.provinces.items():
        for segment in _segments(region.rings):
            (x0, y0), (x1, y1) = segment
            for bx in range(
                int((min(x0, x1) - _ON_BORDER) // _BUCKET),
                int((max(x0, x1) + _ON_BORDER) // _BUCKET) + 1,
            ):
                for by in range(
                    int((min(y0, y1) - _ON_BORDER) // _BUCKET),
                    int((max(y0, y1) + _ON_BORDER) // _BUCKET) + 1,
                ):
                    buckets.setdefault((bx, by), []).append((prov, segment))
    directed: dict[tuple[str, str], float] = {}
    for prov, region in geometry.provinces.items():
        for (x0, y0), (x1, y1) in _segments(region.rings):
            length = math.hypot(x1 - x0, y1 - y0)
            if length == 0:
                continue
            steps = max(1, math.ceil(length / _SAMPLE_STEP))
            weight = length / steps
            for i in range(steps):
                t = (i + 0.5) / steps
                px, py = x0 + (x1 - x0) * t, y0 + (y1 - y0) * t
                near: set[str] = set()
                for other, segment in buckets.get((int(px // _BUCKET), int(py // _BUCKET)), ()):
                    if (
                        other != prov
                        and other not in near
                        and _along(px, py, (x1 - x0) / length, (y1 - y0) / length, segment)
                    ):
                        near.add(other)
                for other in near:
                    directed[(prov, other)] = directed.get((prov, other), 0.0) + weight
    shared: dict[tuple[str, str], float] = {}
    for (a, b), length in directed.items():
        key = (min(a, b), max(a, b))
        shared[key] = max(shared.get(key, 0.0), length)
    return shared


def _segments(rings: tuple[Ring, ...]) -> Iterator[Segment]:
    for ring in rings:
        yield from zip(ring, (*ring[1:], ring[0]), strict=True)


def _along(px: float, py: float, ux: float, uy: float, segment: Segment) -> bool:
    """Whether the point (px, py), on an edge of direction (ux, uy), lies on ``segment``:
    within :data:`_ON_BORDER` of it, its foot on it, the two roughly parallel."""
    (x0, y0), (x1, y1) = segment
    dx, dy = x1 - x0, y1 - y0
    span = dx * dx + dy * dy
    if span == 0 or abs(ux * dy - uy * dx) > 0.25 * math.sqrt(span):
        return False
    t = ((px - x0) * dx + (py - y0) * dy) / span
    if not 0 < t < 1:
        return False
    return math.hypot(px - (x0 + t * dx), py - (y0 + t * dy)) <= _ON_BORDER
