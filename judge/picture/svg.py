"""The SVG writer: a :class:`~judge.picture.shapes.Scene` as a standalone SVG document,
written with the standard library (every text and attribute XML-escaped)."""

from __future__ import annotations

import threading
from xml.sax.saxutils import escape, quoteattr

from judge.picture.geometry import Point
from judge.picture.shapes import Circle, Group, Line, Polygon, Scene, Shape

__all__ = ["FONT_FAMILY", "to_svg"]

#: Generic font families, so a viewer picks a sans-serif font it has.
FONT_FAMILY = "DejaVu Sans, Helvetica, Arial, sans-serif"


def _num(value: float) -> str:
    # One decimal is finer than a pixel and keeps the document small.
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _clean(value: str) -> str:
    # XML 1.0 cannot carry control characters, even escaped: they are dropped.
    return "".join(ch for ch in value if ch >= " " or ch == "\t")


def _text(value: str) -> str:
    return escape(_clean(value))


def _attr(value: str) -> str:
    return quoteattr(_clean(value))


def _points(points: tuple[Point, ...]) -> str:
    return " ".join(f"{_num(x)},{_num(y)}" for x, y in points)


def _paint(fill: str | None, stroke: str | None, width: float) -> str:
    out = f' fill="{fill or "none"}"'
    if stroke:
        out += f' stroke="{stroke}" stroke-width="{_num(width)}"'
    return out


def _shape(shape: Shape) -> str:
    if isinstance(shape, Polygon):
        if len(shape.rings) == 1:
            return f'<polygon points="{_points(shape.rings[0])}"' + (
                _paint(shape.fill, shape.stroke, shape.width) + ' stroke-linejoin="round"/>'
            )
        path = " ".join(f"M{_points(ring)}Z" for ring in shape.rings)
        return (
            f'<path d="{path}" fill-rule="evenodd"'
            + _paint(shape.fill, shape.stroke, shape.width)
            + ' stroke-linejoin="round"/>'
        )
    if isinstance(shape, Line):
        dash = f' stroke-dasharray="{" ".join(_num(d) for d in shape.dash)}"' if shape.dash else ""
        return (
            f'<polyline points="{_points(shape.points)}" fill="none" stroke="{shape.stroke}"'
            f' stroke-width="{_num(shape.width)}"{dash} stroke-linejoin="round"/>'
        )
    if isinstance(shape, Circle):
        return (
            f'<circle cx="{_num(shape.centre[0])}" cy="{_num(shape.centre[1])}"'
            f' r="{_num(shape.r)}"' + _paint(shape.fill, shape.stroke, shape.width) + "/>"
        )
    anchor = shape.anchor if shape.anchor in ("middle", "end") else "start"
    halo = (
        f' stroke="{shape.halo}" stroke-width="{_num(shape.halo_width * 2)}"'
        ' paint-order="stroke" stroke-linejoin="round"'
        if shape.halo
        else ""
    )
    return (
        f'<text x="{_num(shape.at[0])}" y="{_num(shape.at[1])}" font-size="{_num(shape.size)}"'
        f' text-anchor="{anchor}" dominant-baseline="central" fill="{shape.fill}"{halo}>'
        f"{_text(shape.text)}</text>"
    )


def _group(group: Group) -> str:
    attrs = f" class={_attr(group.cls)}" + "".join(
        f" data-{key}={_attr(value)}" for key, value in group.data
    )
    return f"<g{attrs}>" + "".join(_shape(s) for s in group.items) + "</g>"


#: The boards written lately, as (the scene's board tuple, its SVG): the scene builder
#: gives every picture of a map the same tuple, so it is written once per process.
_BOARDS: list[tuple[tuple[Group, ...], str]] = []
_BOARDS_KEPT = 4
_BOARDS_LOCK = threading.Lock()


def _board(scene: Scene) -> str:
    with _BOARDS_LOCK:  # pictures may be drawn in several threads of the judge
        for board, text in _BOARDS:
            if board is scene.board:
                return text
        text = "\n".join(_group(g) for g in scene.board)
        _BOARDS.insert(0, (scene.board, text))
        del _BOARDS[_BOARDS_KEPT:]
        return text


def to_svg(scene: Scene) -> str:
    """``scene`` as an SVG document (UTF-8 text, no XML declaration needed)."""
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{scene.width}"'
        f' height="{scene.height}" viewBox="0 0 {scene.width} {scene.height}"'
        f" font-family={quoteattr(FONT_FAMILY)}>"
        f"<title>{_text(scene.title)}</title>"
        f'<rect width="{scene.width}" height="{scene.height}" fill="{scene.background}"/>'
    )
    body = "\n".join([_board(scene), *(_group(g) for g in scene.groups)])
    return head + body + "</svg>\n"
