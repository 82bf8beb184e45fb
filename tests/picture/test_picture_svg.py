"""The SVG's structure: every unit and every order's mark present as an element saying
what it is, the title and the legend; parsed with xml.etree as any reader would."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from picturekit import tiny_geometry, tiny_map
from support import pictures

from judge.engine import ARMY, FLEET, Adjudication, Position, Unit, adjudicate
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
    Waive,
)
from judge.engine.results import OrderResult
from judge.picture import draw
from judge.picture.drawing import draw_with

NS = "{http://www.w3.org/2000/svg}"


def _groups(svg: str) -> list[ET.Element]:
    return list(ET.fromstring(svg).iter(f"{NS}g"))


def _units(svg: str) -> set[tuple[str, str, str, str]]:
    return {
        (g.get("class", ""), g.get("data-power", ""), g.get("data-type", ""),
         g.get("data-location", ""))
        for g in _groups(svg)
        if g.get("class", "").split()[0] == "unit"
    }  # fmt: skip


def _orders(svg: str) -> list[tuple[str, str, str]]:
    return [
        (g.get("class", ""), g.get("data-from", ""), g.get("data-to", ""))
        for g in _groups(svg)
        if g.get("class", "").startswith("order ")
    ]


def _texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{NS}text")]


def _expected_mark(result: OrderResult) -> tuple[str, str, str] | None:
    """The element a result must have, or None when it is not drawn (default holds,
    waives)."""
    order, outcome = result.order, "succeeded" if result.success else "failed"
    default = " default" if result.default else ""
    kinds: list[tuple[type, str]] = [
        (Move, "move"), (Retreat, "retreat"), (SupportHold, "support"),
        (SupportMove, "support"), (Convoy, "convoy"), (Disband, "disband"), (Remove, "remove"),
        (Build, "build"), (Hold, "hold"),
    ]  # fmt: skip
    if isinstance(order, Waive) or (isinstance(order, Hold) and result.default):
        return None
    kind = next(word for cls, word in kinds if isinstance(order, cls))
    if isinstance(order, Move) and order.via_convoy:
        kind += " convoyed"
    to = getattr(order, "destination", "")
    return (f"order {kind} {outcome}{default}", order.location, to)


def _unit_rows(units: list[Unit], cls: str = "unit") -> set[tuple[str, str, str, str]]:
    return {(cls, u.power, u.type.word.lower(), u.location) for u in units}


def test_initial_position_every_unit_title_and_legend() -> None:
    start = Position.initial(pictures.MAP)
    svg = draw(start, title="Game demo", caption="Spring 1901, before the first moves").svg()
    assert _units(svg) == _unit_rows(list(start.units.values()))
    assert len(_units(svg)) == 22
    assert _orders(svg) == []
    texts = _texts(svg)
    assert "Game demo" in texts and "Spring 1901, before the first moves" in texts
    # Each power's counts say what they count (no "3/3" to decode, no header to find).
    legend = [g for g in _groups(svg) if g.get("class") == "legend-power"]
    assert [[t.text for t in g.iter(f"{NS}text")][1:] for g in legend] == [
        ["Austria", "3 centres, 3 units"], ["England", "3 centres, 3 units"],
        ["France", "3 centres, 3 units"], ["Germany", "3 centres, 3 units"],
        ["Italy", "3 centres, 3 units"], ["Russia", "4 centres, 4 units"],
        ["Turkey", "3 centres, 3 units"],
    ]  # fmt: skip
    assert not any("/" in t for t in texts)
    assert ET.fromstring(svg).find(f"{NS}title").text == (  # type: ignore[union-attr]
        "Game demo Spring 1901, before the first moves"
    )
    centres = [g for g in _groups(svg) if g.get("class") == "centre"]
    assert len(centres) == 34
    assert sum(1 for g in centres if g.get("data-owner")) == 22


def _check_results(out: Adjudication) -> str:
    svg = draw(out.before, out.results, out.position, title="Game demo", caption="x").svg()
    marks = _orders(svg)
    expected = [m for m in map(_expected_mark, out.results) if m is not None]
    assert sorted(marks) == sorted(expected)
    return svg


def test_movement_results_every_unit_and_every_order() -> None:
    out = pictures.movement()
    svg = _check_results(out)
    dislodged = [out.before.units[p] for p in ("bur", "tyr", "arm")]
    assert _units(svg) == (
        _unit_rows([u for u in out.before.units.values() if u not in dislodged])
        | _unit_rows(dislodged, "unit dislodged")
    )
    options = {
        (g.get("data-from"), g.get("data-to"))
        for g in _groups(svg)
        if g.get("class") == "retreat-option"
    }
    assert options == {("bur", "bel"), ("bur", "pic"), ("bur", "ruh"), ("tyr", "pie")}
    destroyed = [g.get("data-location") for g in _groups(svg) if g.get("class") == "destroyed"]
    assert destroyed == ["arm"]
    # The legend counts what the phase left: the centres change hands after the retreats
    # (the next picture shows it); the dislodged units still count, the destroyed not.
    legend = {
        g.get("data-power"): (g.get("data-centres"), g.get("data-units"))
        for g in _groups(svg)
        if g.get("class") == "legend-power"
    }
    assert legend == {
        "Austria": ("3", "5"), "England": ("3", "3"), "France": ("3", "5"),
        "Germany": ("3", "4"), "Italy": ("3", "4"), "Russia": ("4", "5"),
        "Turkey": ("3", "4"),
    }  # fmt: skip


def test_retreat_and_adjustment_results() -> None:
    retreat = pictures.retreats()
    svg = _check_results(retreat)
    assert ("order retreat succeeded", "bur", "bel") in _orders(svg)
    assert ("order disband succeeded", "tyr", "") in _orders(svg)
    adjust = pictures.adjustments()
    svg = _check_results(adjust)
    assert sorted(_orders(svg)) == [
        ("order build succeeded", "lon", ""),
        ("order remove succeeded", "ukr", ""),
        ("order remove succeeded default", "boh", ""),
    ]


def test_a_retreat_phase_as_it_stands_shows_the_retreat_options() -> None:
    position = pictures.movement().position
    svg = draw(position, title="Game demo", caption="Fall 1901 retreats").svg()
    options = sorted(
        (g.get("data-from", ""), g.get("data-to", ""))
        for g in _groups(svg)
        if g.get("class") == "retreat-option"
    )
    assert options == [("bur", "bel"), ("bur", "pic"), ("bur", "ruh"), ("tyr", "pie")]


def test_title_text_is_escaped_and_control_characters_dropped() -> None:
    start = Position.initial(tiny_map())
    svg = draw_with(
        tiny_geometry(), start, title='Game <a&b> "q"', caption="Spring\x00 1901\x1b"
    ).svg()
    root = ET.fromstring(svg)
    assert root.find(f"{NS}title").text == 'Game <a&b> "q" Spring 1901'  # type: ignore[union-attr]
    title = next(g for g in _groups(svg) if g.get("class") == "title")
    assert (title.get("data-title"), title.get("data-caption")) == (
        'Game <a&b> "q"',
        "Spring 1901",
    )


def test_a_move_the_engine_found_convoyed_is_drawn_so() -> None:
    """``A Lon-Nwy`` with a convoy ordered: the engine marks it convoyed, and so does the
    picture."""
    start = Position.build(
        pictures.MAP,
        "S1901M",
        [Unit("England", ARMY, "lon"), Unit("England", FLEET, "nth")],
    )
    out = adjudicate(start, {"England": ["A lon-nwy", "F nth C A lon-nwy"]})
    svg = draw(start, out.results, out.position, title="Game demo").svg()
    assert _orders(svg) == [
        ("order convoy succeeded", "nth", "nwy"),
        ("order move convoyed succeeded", "lon", "nwy"),
    ]
