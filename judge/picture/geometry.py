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
stands there, so its ``unit`` is its label point); sea provinces cover the water.
:func:`check_geometry` tells what is missing or inconsistent with the map file.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from judge.engine.board import Map

__all__ = [
    "Coast",
    "Geometry",
    "GeometryError",
    "Point",
    "Region",
    "Ring",
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
