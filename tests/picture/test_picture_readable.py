"""What a player must be able to read on the standard map's pictures: every province's
name (drawn again over the marks that cross it), every dislodged unit wholly in its
province and off its name, every fleet on a split coast at that coast."""

from __future__ import annotations

import math

from support import pictures

from judge.engine import Position
from judge.picture import draw
from judge.picture.geometry import load_geometry
from judge.picture.shapes import Circle, Group, Scene, Text


def _scene(out: object) -> Scene:
    before, results, after = out.before, out.results, out.position  # type: ignore[attr-defined]
    return draw(before, results, after, title="Game demo", caption="x").scene


def _names_over(scene: Scene) -> list[str]:
    return [dict(g.data)["province"] for g in scene.groups if g.cls == "name-over"]


def _label_box(scene: Scene, province: str) -> tuple[float, float, float, float]:
    (name,) = [g for g in scene.board if g.cls == "name" and dict(g.data)["province"] == province]
    text = name.items[0]
    assert isinstance(text, Text)
    half_w, half_h = 0.3 * text.size * len(text.text) + 1.6, 0.5 * text.size + 1.6
    return (text.at[0] - half_w, text.at[1] - half_h, text.at[0] + half_w, text.at[1] + half_h)


def test_names_under_arrow_heads_are_drawn_again_over_the_orders() -> None:
    scene = _scene(pictures.movement())
    over = _names_over(scene)
    # The names the arrow heads, lines and units of Fall 1901 cross, among them the
    # ends of the moves to Ukraine, Galicia, Greece, the Ionian Sea, Armenia and the
    # convoying fleet's North Sea.
    assert {"ukr", "gal", "gre", "ion", "nth", "arm"} <= set(over)
    assert over == sorted(over)
    _check_layers(scene)
    # The same text, size and halo as the board's name.
    (gal,) = [g for g in scene.groups if g.cls == "name-over" and g.data == (("province", "gal"),)]
    assert gal.items == next(g.items for g in scene.board if g.data == (("province", "gal"),))


#: The marks a name is drawn over: the orders' lines and arrows, the retreat options.
LINES = {"hold", "move", "retreat", "support", "convoy"}


def _check_layers(scene: Scene, names: bool = True) -> None:
    """Names drawn again over every order's line, and under every unit (a unit's letter
    must read), the crosses over the units they cross out; the dislodged units, drawn
    aside off the names, under the lines that end on them (a support's dot was hidden)."""
    layers = []
    for group in scene.groups:
        words = group.cls.split()
        if words[:2] == ["unit", "dislodged"]:
            layers.append("aside")
        elif words[0] == "name-over":
            layers.append("name")
        elif words[0] == "retreat-option" or (words[0] == "order" and words[1] in LINES):
            layers.append("line")
        elif words[0] == "unit" or words[:2] == ["order", "build"]:
            layers.append("unit")
        elif words[0] == "destroyed" or (words[0] == "order" and words[1] in {"disband", "remove"}):
            layers.append("cross")
    assert ("name" in layers) is names
    order = {"aside": 0, "line": 1, "name": 2, "unit": 3, "cross": 4}
    assert layers == sorted(layers, key=order.__getitem__), layers


def test_a_name_drawn_again_leaves_the_units_letters_on_top() -> None:
    """Ukraine's name was drawn again over the cross of the army removed there, and so
    over the army's letter."""
    scene = _scene(pictures.adjustments())
    # No order's line crosses a name in the winter: no name is drawn again.
    assert _names_over(scene) == []
    _check_layers(scene, names=False)
    (ukr,) = [g for g in scene.groups if g.cls == "unit" and dict(g.data)["location"] == "ukr"]
    assert isinstance(ukr.items[-1], Text) and ukr.items[-1].text == "R"
    for out in (pictures.movement(), pictures.retreats()):
        _check_layers(_scene(out))


def test_the_opening_draws_no_name_twice() -> None:
    scene = draw(Position.initial(pictures.MAP), title="Game demo").scene
    assert _names_over(scene) == []


def _inside(p: tuple[float, float], ring: tuple[tuple[float, float], ...]) -> bool:
    x, y = p
    inside = False
    for (x0, y0), (x1, y1) in zip(ring, (*ring[1:], ring[0]), strict=True):
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside


def _border_gap(p: tuple[float, float], ring: tuple[tuple[float, float], ...]) -> float:
    best = math.inf
    for a, c in zip(ring, (*ring[1:], ring[0]), strict=True):
        dx, dy = c[0] - a[0], c[1] - a[1]
        t = (
            0.0
            if dx == dy == 0
            else ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy)
        )
        t = min(max(t, 0.0), 1.0)
        best = min(best, math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy))
    return best


def _dislodged(scene: Scene) -> list[Group]:
    return [g for g in scene.groups if g.cls == "unit dislodged"]


def _check_dislodged(scene: Scene) -> None:
    geometry = load_geometry(pictures.MAP)
    for group in _dislodged(scene):
        province = dict(group.data)["location"].split("/")[0]
        disc = group.items[0]
        assert isinstance(disc, Circle)
        cx, cy = disc.centre
        p = (cx, cy - 46)  # the picture's point back on the geometry (scale 1, title 46)
        rings = geometry.provinces[province].rings
        assert any(_inside(p, r) for r in rings), province
        # The whole white disc (its radius less a pixel or two of the border's line) in.
        assert min(_border_gap(p, r) for r in rings) >= disc.r - 2.5, province
        x0, y0, x1, y1 = _label_box(scene, province)
        nx, ny = min(max(cx, x0), x1), min(max(cy, y0), y1)
        assert math.hypot(cx - nx, cy - ny) >= disc.r, f"{province} covers its name"


def test_dislodged_units_stand_wholly_in_their_province_off_its_name() -> None:
    _check_dislodged(_scene(pictures.movement()))
    position = pictures.movement().position
    _check_dislodged(draw(position, title="Game demo").scene)


def test_fleets_on_split_coasts_stand_apart_at_their_coast() -> None:
    """A fleet on a split coast is seen at that coast: its point is well away from the
    army point (Bulgaria's south coast was 6 px from it), and St Petersburg's north
    coast faces the Barents Sea from the Kola shore, not the White Sea inlet."""
    geometry = load_geometry(pictures.MAP)
    for province, region in geometry.provinces.items():
        points = [region.unit, *(c.unit for c in region.coasts.values())]
        for i, a in enumerate(points):
            for c in points[i + 1 :]:
                assert math.dist(a, c) >= 24.0, province
    north = geometry.provinces["stp"].coasts["nc"].unit
    assert north[1] < 90, north


def test_centre_markers_keep_off_other_provinces_names() -> None:
    """Belgium's marker went below its name, against Picardy's."""
    scene = draw(Position.initial(pictures.MAP), title="Game demo").scene
    boxes = {dict(g.data)["province"]: _label_box(scene, dict(g.data)["province"])
             for g in scene.board if g.cls == "name"}  # fmt: skip
    for group in scene.groups:
        if group.cls != "centre":
            continue
        province = dict(group.data)["province"]
        marker = group.items[0]
        assert isinstance(marker, Circle)
        cx, cy = marker.centre
        for other, (x0, y0, x1, y1) in boxes.items():
            if other != province:
                gap = math.hypot(cx - min(max(cx, x0), x1), cy - min(max(cy, y0), y1))
                assert gap - marker.r >= 5.0, (province, other)
