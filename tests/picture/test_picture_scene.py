"""Engine values into the picture's groups: which marks for which order and outcome, and
where, on the tiny hand-made map of picturekit (scale 3: 400 x 300 drawn 1200 wide)."""

from __future__ import annotations

import pytest
from picturekit import tiny_geometry, tiny_map
from PIL import ImageFont

from judge.engine import ARMY, FLEET, Dislodged, Position, Unit, adjudicate
from judge.picture import marks
from judge.picture.geometry import GeometryError, Point, geometry_from_json
from judge.picture.palette import BOARD, POWER_COLOURS, PowerStyle, power_styles
from judge.picture.scene import TITLE_HEIGHT, build_scene
from judge.picture.shapes import Circle, Group, Line, Scene, Text

MAP = tiny_map()
GEOMETRY = tiny_geometry()
FR, GE = POWER_COLOURS["France"], POWER_COLOURS["Germany"]


def pt(x: float, y: float) -> Point:
    """A point of the tiny geometry on the picture."""
    return (x * 3.0, TITLE_HEIGHT + y * 3.0)


def kind(scene: Scene, word: str) -> list[Group]:
    return [g for g in (*scene.board, *scene.groups) if word in g.cls.split()]


def facts(groups: list[Group]) -> list[tuple[str, dict[str, str]]]:
    return [(g.cls, dict(g.data)) for g in groups]


def scene_of(position: Position, orders: dict[str, list[str]] | None = None) -> Scene:
    if orders is None:
        return build_scene(position, (), None, GEOMETRY, title="Game tiny", caption="now")
    out = adjudicate(position, orders)
    assert out.rejected == ()
    return build_scene(position, out.results, out.position, GEOMETRY, title="T", caption="C")


def test_the_board_as_it_stands() -> None:
    scene = scene_of(Position.initial(MAP))
    assert (scene.width, scene.height) == (1200, TITLE_HEIGHT + 900 + 74)
    assert facts(kind(scene, "unit")) == [
        ("unit", {"power": "France", "type": "fleet", "location": "aaa"}),
        ("unit", {"power": "Germany", "type": "army", "location": "ddd"}),
    ]
    fleet, army = kind(scene, "unit")
    assert fleet.items == marks.unit(pt(65, 230), True, _style("France"))
    assert army.items == marks.unit(pt(335, 180), False, _style("Germany"))
    assert facts(kind(scene, "centre")) == [
        ("centre", {"province": "aaa", "owner": "France"}),
        ("centre", {"province": "bbb", "owner": ""}),
        ("centre", {"province": "ddd", "owner": "Germany"}),
    ]
    # A centre's marker follows its name (half the name's width, guessed, and a gap); an
    # owned one carries the owner's letter.
    x, y = pt(65, 170)
    x += 0.31 * 12 * 3 + 10
    assert kind(scene, "centre")[0].items == (
        Circle((x, y), 6.5, FR, BOARD.ink, 1.3),
        Text((x, y + 0.3), "F", 8.5, "#000000"),
    )
    assert [(g.data, g.items[0].text) for g in kind(scene, "name")] == [  # type: ignore[union-attr]
        ((("province", p),), name)
        for p, name in [
            ("aaa", "Alp"), ("bbb", "Bet"), ("ccc", "GAM"), ("ddd", "Del"), ("eee", "Eps"),
            ("fff", "Phi"),
        ]
    ]  # fmt: skip
    assert [(g.cls, g.items[0].fill) for g in scene.board if "province" in g.cls.split()] == [  # type: ignore[union-attr]
        ("province sea", BOARD.sea),
        ("province land home", _style("France").tint),
        ("province land", BOARD.land),
        ("province land home", _style("Germany").tint),
        ("province impassable", BOARD.impassable),
        ("province land", BOARD.land),
    ]
    # The counts say what they count, one of each in the singular.
    assert [
        [t.text for t in g.items if isinstance(t, Text)] for g in kind(scene, "legend-power")
    ] == [["F", "France", "1 centre, 1 unit"], ["G", "Germany", "1 centre, 1 unit"]]
    assert facts(kind(scene, "legend-power")) == [
        ("legend-power", {"power": "France", "centres": "1", "units": "1"}),
        ("legend-power", {"power": "Germany", "centres": "1", "units": "1"}),
    ]
    assert facts(kind(scene, "title")) == [("title", {"title": "Game tiny", "caption": "now"})]
    assert kind(scene, "order") == []


def _style(power: str) -> PowerStyle:
    return power_styles(MAP.powers, MAP.power_letter)[power]


def _attack() -> Position:
    return Position.build(
        MAP,
        "F1901M",
        [
            Unit("France", ARMY, "bbb"),
            Unit("France", FLEET, "ccc"),
            Unit("Germany", ARMY, "ddd"),
            Unit("Germany", ARMY, "fff"),
        ],
    )


def test_moves_supports_and_a_dislodgement_with_its_retreat() -> None:
    start = _attack()
    scene = scene_of(
        start,
        {"France": ["A bbb S A fff", "F ccc H"], "Germany": ["A ddd-bbb", "A fff S A ddd-bbb"]},
    )
    assert facts(kind(scene, "order")) == [
        ("order support failed", {"power": "France", "from": "bbb", "target": "fff"}),
        ("order hold succeeded", {"power": "France", "from": "ccc"}),
        ("order support succeeded",
         {"power": "Germany", "from": "fff", "target": "ddd", "to": "bbb"}),
        ("order move succeeded", {"power": "Germany", "from": "ddd", "to": "bbb"}),
    ]  # fmt: skip
    support_hold, hold, support_move, move = kind(scene, "order")
    assert hold.items == marks.hold_square(pt(100, 60))
    # The dislodged army is pushed on along the attack, away from the arrow's head.
    assert facts(kind(scene, "dislodged")) == [
        ("unit dislodged", {"power": "France", "type": "army", "location": "bbb"})
    ]
    (bx, by), (dx, dy) = pt(200, 250), pt(335, 180)
    length = ((bx - dx) ** 2 + (by - dy) ** 2) ** 0.5
    pushed = (bx + (bx - dx) / length * 26, by + (by - dy) / length * 26)
    assert kind(scene, "dislodged")[0].items == (
        *marks.dislodged_ring(pushed),
        *marks.unit(pushed, False, _style("France")),
    )
    # Its failed support starts where it is drawn, ends hollow at the supported army.
    path = marks.shorten((pushed, pt(335, 270)), marks.UNIT_R, marks.UNIT_R + 4)
    assert support_hold.items == (
        *marks.support_line(path, FR),
        *marks.end_dot(path[-1], FR, False),
    )
    # The support to move ends on the supported move's line, solid.
    end = (dx + (bx - dx) * 0.55, dy + (by - dy) * 0.55)
    path = marks.shorten((pt(335, 270), end), marks.UNIT_R, 5.0)
    assert support_move.items == (
        *marks.support_line(path, GE),
        *marks.end_dot(path[-1], GE, True),
    )
    # The head comes close to Beta's unit point: the army dislodged there is drawn aside.
    assert move.items == marks.arrow(
        marks.shorten((pt(335, 180), pt(200, 250)), marks.UNIT_R, 5.0), GE, True
    )
    # Alpha is empty: the dislodged army may retreat there, drawn as a small arrow.
    assert facts(kind(scene, "retreat-option")) == [
        ("retreat-option", {"power": "France", "from": "bbb", "to": "aaa"})
    ]
    assert kind(scene, "destroyed") == []
    # Units stand where they stood; the dislodged one only aside.
    assert [dict(g.data)["location"] for g in scene.groups if g.cls == "unit"] == [
        "ccc", "ddd", "fff",
    ]  # fmt: skip


def test_a_dislodged_unit_with_nowhere_to_go_is_crossed() -> None:
    start = Position.build(
        MAP,
        "F1901M",
        [*_attack().units.values(), Unit("France", ARMY, "aaa")],
    )
    scene = scene_of(start, {"Germany": ["A ddd-bbb", "A fff S A ddd-bbb"]})
    assert kind(scene, "retreat-option") == []
    assert facts(kind(scene, "destroyed")) == [("destroyed", {"location": "bbb"})]
    at = kind(scene, "dislodged")[0].items[-1]
    assert isinstance(at, Text)
    assert kind(scene, "destroyed")[0].items == marks.cross((at.at[0], at.at[1] - 0.5))


def test_bounce_and_convoy() -> None:
    start = Position.build(
        MAP,
        "S1901M",
        [Unit("France", ARMY, "aaa"), Unit("France", FLEET, "ccc"), Unit("Germany", ARMY, "ddd")],
    )
    scene = scene_of(
        start, {"France": ["A aaa-ccc-bbb", "F ccc C A aaa-bbb"], "Germany": ["A ddd-bbb"]}
    )
    assert facts(kind(scene, "order")) == [
        ("order convoy succeeded",
         {"power": "France", "from": "ccc", "target": "aaa", "to": "bbb"}),
        ("order move convoyed failed", {"power": "France", "from": "aaa", "to": "bbb"}),
        ("order move failed", {"power": "Germany", "from": "ddd", "to": "bbb"}),
    ]  # fmt: skip
    convoy, convoyed, bounce = kind(scene, "order")
    assert convoyed.items == marks.arrow(
        marks.shorten((pt(65, 230), pt(200, 250)), marks.UNIT_R, marks.UNIT_R), FR, False
    )
    # The convoy's dotted line meets the convoyed army's line (at 20% of it, the nearest
    # point kept off its ends), ending in a solid square.
    a, c = pt(65, 230), pt(200, 250)
    foot = (a[0] + (c[0] - a[0]) * 0.2, a[1] + (c[1] - a[1]) * 0.2)
    path = marks.shorten((pt(100, 60), foot), marks.UNIT_R, 4.5)
    assert convoy.items == (
        *marks.line_to(path, FR, marks.CONVOY_DASH),
        *marks.end_square(path[-1], FR, True),
    )
    # A failed move: dashed, hollow head.
    assert bounce.items[0].dash == marks.FAILED_DASH  # type: ignore[union-attr]
    assert bounce.items[2].fill == BOARD.halo  # type: ignore[union-attr]


def test_retreat_phase_without_and_with_results() -> None:
    out = adjudicate(_attack(), {"Germany": ["A ddd-bbb", "A fff S A ddd-bbb"]})
    retreat = out.position
    assert str(retreat.phase) == "F1901R"
    scene = scene_of(retreat)
    assert facts(kind(scene, "dislodged")) == [
        ("unit dislodged", {"power": "France", "type": "army", "location": "bbb"})
    ]
    assert facts(kind(scene, "retreat-option")) == [
        ("retreat-option", {"power": "France", "from": "bbb", "to": "aaa"})
    ]
    # The German army that moved in stands in Beta too.
    assert ("unit", {"power": "Germany", "type": "army", "location": "bbb"}) in facts(
        kind(scene, "unit")
    )
    moved = scene_of(retreat, {"France": ["A bbb-aaa"]})
    assert facts(kind(moved, "order")) == [
        ("order retreat succeeded", {"power": "France", "from": "bbb", "to": "aaa"})
    ]
    assert kind(moved, "retreat-option") == []
    disbanded = scene_of(retreat, {"France": ["A bbb D"]})
    assert facts(kind(disbanded, "order")) == [
        ("order disband succeeded", {"power": "France", "from": "bbb"})
    ]
    drawn = kind(disbanded, "dislodged")[0].items[-1]
    assert isinstance(drawn, Text)
    assert kind(disbanded, "order")[0].items == marks.cross((drawn.at[0], drawn.at[1] - 0.5))
    # No order at all: the judge disbands it, drawn crossed too.
    silent = scene_of(retreat, {})
    assert facts(kind(silent, "order")) == [
        ("order disband succeeded default", {"power": "France", "from": "bbb"})
    ]


def test_adjustments_builds_removals_and_waives() -> None:
    start = Position.build(
        MAP,
        "W1901A",
        [Unit("Germany", ARMY, "fff"), Unit("Germany", ARMY, "bbb")],
        {"aaa": "France", "ddd": "Germany"},
    )
    scene = scene_of(start, {"France": ["Build F aaa"], "Germany": ["Remove A fff"]})
    assert facts(kind(scene, "order")) == [
        ("order build succeeded", {"power": "France", "from": "aaa", "type": "fleet"}),
        ("order remove succeeded", {"power": "Germany", "from": "fff"}),
    ]
    build, remove = kind(scene, "order")
    assert build.items == (
        *marks.build_ring(pt(65, 230)),
        *marks.unit(pt(65, 230), True, _style("France")),
    )
    assert remove.items == marks.cross(pt(335, 270))
    waived = scene_of(start, {"France": ["Waive"], "Germany": ["Remove A fff"]})
    assert [g.cls for g in kind(waived, "order")] == ["order remove succeeded"]


def test_a_province_missing_from_the_geometry_is_named() -> None:
    from picturekit import TINY_GEOMETRY

    partial = dict(TINY_GEOMETRY)
    provinces = dict(TINY_GEOMETRY["provinces"])  # type: ignore[call-overload]
    del provinces["fff"]
    partial["provinces"] = provinces
    with pytest.raises(GeometryError, match="the geometry of map 'Tiny' has no province 'fff'"):
        build_scene(
            Position.initial(MAP), (), None, geometry_from_json(partial), title="T", caption=""
        )


def test_a_centre_marker_keeps_clear_of_the_unit() -> None:
    """After the name is where the unit stands: the marker goes below the name."""
    from picturekit import TINY_GEOMETRY

    moved = dict(TINY_GEOMETRY)
    provinces = dict(TINY_GEOMETRY["provinces"])  # type: ignore[call-overload]
    provinces["aaa"] = {**provinces["aaa"], "unit": [72, 170]}
    moved["provinces"] = provinces
    scene = build_scene(
        Position.initial(MAP), (), None, geometry_from_json(moved), title="T", caption=""
    )
    x, y = pt(65, 170)
    assert kind(scene, "centre")[0].items[0] == Circle((x, y + 14), 6.5, FR, BOARD.ink, 1.3)


def test_a_long_title_and_caption_are_cut_to_share_the_line() -> None:
    scene = build_scene(
        Position.initial(MAP), (), None, GEOMETRY, title="T" * 60, caption="c\x07" * 60
    )
    assert facts(kind(scene, "title")) == [
        ("title", {"title": "T" * 45 + "...", "caption": "c" * 53 + "..."})
    ]
    texts = [t.text for t in kind(scene, "title")[0].items if isinstance(t, Text)]
    assert texts == ["T" * 45 + "...", "c" * 53 + "..."]


def test_fleets_on_a_split_coast_stand_at_their_coast() -> None:
    start = Position.build(
        MAP, "S1901M", [Unit("France", FLEET, "bbb/sc"), Unit("Germany", ARMY, "ddd")]
    )
    scene = scene_of(start, {"France": ["F bbb/sc-aaa"]})
    fleet = kind(scene, "unit")[0]
    assert dict(fleet.data) == {"power": "France", "type": "fleet", "location": "bbb/sc"}
    assert fleet.items == marks.unit(pt(165, 280), True, _style("France"))
    north = scene_of(Position.build(MAP, "S1901M", [Unit("France", FLEET, "aaa")]),
                     {"France": ["F aaa-bbb/nc"]})  # fmt: skip
    (move,) = kind(north, "order")
    assert dict(move.data)["to"] == "bbb/nc"
    assert move.items == marks.arrow(
        marks.shorten((pt(65, 230), pt(200, 145)), marks.UNIT_R, marks.UNIT_R), FR, True
    )


def test_retreats_that_bounce_are_dashed_and_their_units_crossed() -> None:
    retreat = Position.build(
        MAP,
        "F1901R",
        [Unit("Germany", ARMY, "bbb"), Unit("France", FLEET, "ccc")],
        dislodged=[
            Dislodged(Unit("France", ARMY, "bbb"), "ddd", ("aaa",)),
            Dislodged(Unit("Germany", FLEET, "ccc"), None, ("aaa",)),
        ],
    )
    scene = scene_of(retreat, {"France": ["A bbb-aaa"], "Germany": ["F ccc-aaa"]})
    assert facts(kind(scene, "order")) == [
        ("order retreat failed", {"power": "France", "from": "bbb", "to": "aaa"}),
        ("order retreat failed", {"power": "Germany", "from": "ccc", "to": "aaa"}),
    ]
    assert facts(kind(scene, "destroyed")) == [
        ("destroyed", {"location": "bbb"}),
        ("destroyed", {"location": "ccc"}),
    ]
    # Both drawn aside, away from the units that took their places.
    units = {dict(g.data)["location"]: g for g in kind(scene, "dislodged")}
    for location, group in units.items():
        cross = next(g for g in kind(scene, "destroyed") if dict(g.data)["location"] == location)
        letter = group.items[-1]
        assert isinstance(letter, Text)
        assert cross.items == marks.cross((letter.at[0], letter.at[1] - 0.5))


def test_moves_into_each_other_are_drawn_apart() -> None:
    start = Position.build(
        MAP, "S1901M", [Unit("France", ARMY, "bbb"), Unit("Germany", ARMY, "ddd")]
    )
    scene = scene_of(start, {"France": ["A bbb-ddd"], "Germany": ["A ddd-bbb"]})
    french, german = kind(scene, "order")
    (bx, by), (dx, dy) = pt(200, 250), pt(335, 180)
    length = ((dx - bx) ** 2 + (dy - by) ** 2) ** 0.5
    # Each 5 pixels to its own right: the two arrows 10 pixels apart.
    right = (-(dy - by) / length * 5, (dx - bx) / length * 5)
    path = marks.shorten(((bx, by), (dx, dy)), marks.UNIT_R, marks.UNIT_R)
    assert french.items == marks.arrow(
        tuple((x + right[0], y + right[1]) for x, y in path), FR, False
    )
    path = marks.shorten(((dx, dy), (bx, by)), marks.UNIT_R, marks.UNIT_R)
    assert german.items == marks.arrow(
        tuple((x - right[0], y - right[1]) for x, y in path), GE, False
    )


def test_a_support_is_its_own_sign_not_a_failed_move() -> None:
    """A failed move and a support were both dark-cased dashed lines, told apart only by
    their ends: a support is one thin dashed line in the supporter's colour (on a light
    halo, no dark casing), a failed move a dark-cased dashed shaft with a hollow head."""
    path = ((0.0, 0.0), (100.0, 0.0))
    support = marks.support_line(path, FR)
    lines = [s for s in support if isinstance(s, Line)]
    assert [(s.stroke, s.dash) for s in lines] == [
        (BOARD.halo, marks.SUPPORT_DASH),
        (FR, marks.SUPPORT_DASH),
    ]
    assert lines[1].width <= 2.2
    assert all(s.stroke != BOARD.ink for s in support if isinstance(s, Line))
    failed = marks.arrow(path, FR, False)
    assert [(s.stroke, s.dash) for s in failed if isinstance(s, Line)] == [
        (BOARD.ink, marks.FAILED_DASH),
        (FR, marks.FAILED_DASH),
    ]


def test_the_key_shows_every_sign_and_fits_the_row() -> None:
    scene = scene_of(Position.initial(MAP))
    (key,) = kind(scene, "legend-key")
    texts = [t for t in key.items if isinstance(t, Text) and t.text]  # (a sample has no letter)
    assert [t.text for t in texts] == [
        "army", "fleet", "centre", "move", "failed", "support", "convoy", "dislodged",
        "retreat option", "destroyed, removed", "built", "hold",
    ]  # fmt: skip
    # The retreat options' own sign: the thin arrow a dislodged unit's options are drawn
    # with, in the key's grey.
    options = [s for s in key.items if isinstance(s, Line) and s.width == 2.0 and not s.dash]
    assert len(options) == 1 and options[0].stroke == BOARD.key
    # The support's sign is the support's line, no dark casing.
    assert any(s.dash == marks.SUPPORT_DASH and s.stroke == BOARD.halo
               for s in key.items if isinstance(s, Line))  # fmt: skip
    # Every label ends inside the picture, with a margin, as the PNG's font draws it.
    font = ImageFont.load_default(size=24)
    for text in texts:
        assert text.anchor == "start"
        assert text.at[0] + font.getlength(text.text) / 2 <= scene.width - 8, text.text
    # No label runs into the next sign.
    ends = [t.at[0] + font.getlength(t.text) / 2 for t in texts]
    for end, text in zip(ends, texts[1:], strict=False):
        assert end < text.at[0] - 20, text.text
