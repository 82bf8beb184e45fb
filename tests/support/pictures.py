"""The phases the map picture's tests and benchmark draw: the opening position, and a
movement phase with every kind of order followed by its retreats and adjustments, all
adjudicated by the engine from orders as text."""

from __future__ import annotations

from judge.engine import ARMY, FLEET, Adjudication, Position, Unit, adjudicate, standard_map

MAP = standard_map()

#: Fall 1901: moves that succeed and bounce, a convoy, supports to hold and to move, a cut
#: support, two armies dislodged with somewhere to go and one with nowhere (destroyed).
UNITS = {
    "Austria": ["A vie", "A boh", "A tri", "A bud", "F alb"],
    "England": ["F nth", "A yor", "F nwg"],
    "France": ["A par", "A mar", "A gas", "F spa/sc", "F mao"],
    "Germany": ["A bur", "A mun", "F kie", "A ber"],
    "Italy": ["A tyr", "A ven", "F nap", "A rom"],
    "Russia": ["A sev", "F bla", "A war", "F stp/sc", "A mos"],
    "Turkey": ["F ank", "A smy", "A syr", "A arm", "F con"],
}
ORDERS = {
    "Austria": ["A vie-tyr", "A boh S A vie-tyr", "A tri-ven", "A bud-gal", "F alb-gre"],
    "England": ["A yor-nth-nwy", "F nth C A yor-nwy", "F nwg S A yor-nwy"],
    "France": ["A par-bur", "A mar S A par-bur", "A gas S A par-bur", "F mao-por", "F spa/sc H"],
    "Germany": ["A mun S A bur", "F kie-den", "A ber-kie"],
    "Italy": ["A ven S A tyr", "F nap-ion", "A rom-apu"],
    "Russia": ["A sev-arm", "F bla S A sev-arm", "A war-gal", "F stp/sc-bot", "A mos-ukr"],
    "Turkey": ["F ank H", "F con-bul/sc"],
}
#: The retreats of Fall 1901: one retreat, one disband.
RETREATS = {"Germany": ["A bur-bel"], "Italy": ["A tyr D"]}
#: Winter 1901: England builds, Russia removes, Austria gives no order (removed by the
#: judge).
ADJUSTMENTS = {"England": ["Build F lon"], "Russia": ["Remove A ukr"]}


def fall_1901() -> Position:
    """The position of the busy movement phase."""
    units = [
        Unit(power, ARMY if text[0] == "A" else FLEET, text[2:])
        for power, items in UNITS.items()
        for text in items
    ]
    return Position.build(MAP, "F1901M", units)


def _checked(out: Adjudication) -> Adjudication:
    if out.rejected:
        raise AssertionError(f"orders refused: {[r.message for r in out.rejected]}")
    return out


def movement() -> Adjudication:
    """The busy movement phase adjudicated."""
    return _checked(adjudicate(fall_1901(), ORDERS))


def retreats() -> Adjudication:
    """Its retreat phase adjudicated."""
    return _checked(adjudicate(movement().position, RETREATS))


def adjustments() -> Adjudication:
    """The adjustments that follow, adjudicated."""
    return _checked(adjudicate(retreats().position, ADJUSTMENTS))
