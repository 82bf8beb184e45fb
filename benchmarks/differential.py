"""Differential run: our engine against the ``diplomacy`` package, phase by phase.

Usage::

    python benchmarks/differential.py [--games N] [--first-seed S] [--last-year Y]
                                      [--rules 2000|2023] [--show N]

Plays ``--games`` seeded random games (seeds S..S+N-1, ``coasts=True`` so that supports,
convoys and moves name the split coasts, and now and then a removal is left to the
civil-disorder rule; see ``random_games.py``) and adjudicates every phase with both
engines from the same position: ours from the orders' text (parsing included), the
package from its own syntax, in a separate process (``diplomacy_phases.py`` in
``benchmarks/.venv-diplomacy``; the AGPL package is never imported here).  Each phase
starts from our position, so a difference never carries over to the next phase.

A phase differs when the next positions differ (phase, units, dislodged units and their
retreats, centres), when a support is cut or void in one engine only, or when the
package refuses an order we accepted.  Every differing phase is matched against
:data:`CLASSES`, the known kinds of difference: each has a recogniser, a minimal position
that shows it, the rule that decides it and whose defect it is.  A phase no class
explains is printed in full (the JSON document for ``judge adjudicate`` and the
differences) and the run exits with status 1.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``judge`` and ``benchmarks`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_adjudicate import _loc, _package_state, to_diplomacy
from benchmarks.random_games import PhaseRecord, play_game
from judge.engine.adjudicator import Adjudication, adjudicate
from judge.engine.document import position_from_document, position_to_document
from judge.engine.legality import check_movement
from judge.engine.notation import parse_order
from judge.engine.orders import Convoy, Hold, Move, Order, SupportHold, SupportMove
from judge.engine.phases import PhaseKind
from judge.engine.position import Position
from judge.engine.results import Note
from judge.engine.rules import Edition, Rules
from judge.engine.units import FLEET

HERE = Path(__file__).resolve().parent
DIPLOMACY_PYTHON = HERE / ".venv-diplomacy" / "bin" / "python"
PHASES_SCRIPT = HERE / "diplomacy_phases.py"
#: Chance that a power owing removals leaves one to the civil-disorder rule.
MISSED_REMOVALS = 0.1


# -- one phase, both engines ------------------------------------------------------------


@dataclass
class PhaseDiff:
    """A phase both engines adjudicated, and how their outcomes differ (if they do).

    ``theirs`` is the package's answer (``state``, ``results``, ``errors``, see
    ``diplomacy_phases.py``); ``differences`` maps what differs (``phase``, ``units``,
    ``retreats``, ``centers``, ``supports``, ``refused``) to the two sides.
    """

    seed: int
    record: PhaseRecord
    rules: Rules
    ours: Adjudication
    theirs: dict[str, Any]
    differences: dict[str, Any] = field(default_factory=dict)

    @property
    def position(self) -> Position:
        """The position the phase was played from."""
        return self.record.position

    def orders(self) -> list[tuple[str, Order]]:
        """Every (power, order) given, as values."""
        return [(p, o) for p, os in self.record.orders.items() for o in os]

    def document(self) -> dict[str, Any]:
        """The phase as a ``judge adjudicate`` input document."""
        doc = position_to_document(self.position)
        doc["orders"] = {p: list(t) for p, t in self.record.texts.items()}
        return doc


def package_unit(unit_type: Any, location: str) -> str:
    """A unit as the package names it: ``F STP/SC``, ``F LYO``."""
    return f"{unit_type.value} {_loc(location)}"


def comparable(state: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of a package-shaped state both engines must agree on, normalised."""
    return {
        "phase": state.get("name"),
        "units": {p: sorted(u) for p, u in state.get("units", {}).items() if u},
        "retreats": {
            p: {u: sorted(r) for u, r in sorted(rs.items())}
            for p, rs in state.get("retreats", {}).items()
            if rs
        },
        "centers": {p: sorted(c) for p, c in state.get("centers", {}).items() if c},
    }


def _support_notes(ours: Adjudication) -> dict[str, tuple[bool, bool]]:
    """Package unit name -> (cut, void) of each support we adjudicated.

    Cut includes a supporter dislodged (the package notes both ``cut`` and
    ``dislodged``); void includes a support of an order not given.
    """
    out: dict[str, tuple[bool, bool]] = {}
    for result in ours.results:
        order = result.order
        if isinstance(order, (SupportHold, SupportMove)) and order.unit_type is not None:
            out[package_unit(order.unit_type, order.location)] = (
                result.has(Note.CUT) or result.has(Note.DISLODGED),
                result.has(Note.VOID) or result.has(Note.NO_SUCH_ORDER),
            )
    return out


def _their_support(notes: list[str]) -> tuple[bool, bool]:
    return ("cut" in notes or "dislodged" in notes, "void" in notes)


def differences(ours: Adjudication, theirs: Mapping[str, Any]) -> dict[str, Any]:
    """What differs between our adjudication and the package's answer (empty: nothing)."""
    out: dict[str, Any] = {}
    mine = comparable(_package_state(ours.position))
    other = comparable(theirs["state"])
    if ours.winner is not None and mine["units"] == other["units"]:
        other["phase"] = mine["phase"]  # after a solo the package stops; so do we
    for key in ("phase", "units", "retreats", "centers"):
        if mine[key] == other[key]:
            continue
        if isinstance(mine[key], dict):
            powers = sorted(set(mine[key]) | set(other[key]))
            out[key] = {
                p: {"ours": mine[key].get(p), "theirs": other[key].get(p)}
                for p in powers
                if mine[key].get(p) != other[key].get(p)
            }
        else:
            out[key] = {"ours": mine[key], "theirs": other[key]}
    cuts: dict[str, Any] = {}
    voids: dict[str, Any] = {}
    results = theirs.get("results", {})
    for unit, (cut, void) in _support_notes(ours).items():
        notes = results.get(unit, [])
        their_cut, their_void = _their_support(notes)
        if cut != their_cut:
            cuts[unit] = {"ours": cut, "theirs": their_cut}
        if void != their_void:
            voids[unit] = {"ours": void, "theirs": their_void}
    if cuts:
        out["support cut"] = cuts
    if voids:
        out["support void"] = voids
    if theirs.get("errors"):
        out["refused"] = list(theirs["errors"])
    return out


#: One thing that differs: ``("units", power, unit)``, ``("retreats", power, unit)``,
#: ``("centers", power, centre)``, ``("phase",)``, ``("support cut", unit)``,
#: ``("support void", unit)``, ``("refused", message)``.
Item = tuple[str, ...]


def items(found: Mapping[str, Any]) -> set[Item]:
    """The differences of :func:`differences` split into single items."""
    out: set[Item] = set()
    for key, value in found.items():
        if key == "phase":
            out.add(("phase",))
        elif key in ("units", "centers"):
            for power, sides in value.items():
                ours_set, theirs_set = set(sides["ours"] or ()), set(sides["theirs"] or ())
                out.update((key, power, u) for u in ours_set ^ theirs_set)
        elif key == "retreats":
            for power, sides in value.items():
                mine, other = sides["ours"] or {}, sides["theirs"] or {}
                out.update(
                    (key, power, u) for u in set(mine) | set(other) if mine.get(u) != other.get(u)
                )
        elif key == "refused":
            out.update((key, message) for message in value)
        else:
            out.update((key, unit) for unit in value)
    return out


def readjudicate(diff: PhaseDiff, change: Callable[[Order], Order]) -> Adjudication:
    """Our engine again on the phase, each order passed through ``change`` first."""
    orders = {p: [change(o) for o in os] for p, os in diff.record.orders.items()}
    return adjudicate(diff.position, orders, diff.rules)


def explained_by_change(diff: PhaseDiff, change: Callable[[Order], Order]) -> set[Item]:
    """The items that go away when our engine is given the orders changed by ``change``.

    ``change`` rewrites orders into ones that mean the same under the rule at issue, so
    what goes away was caused by how we handle that rule.
    """
    before = items(diff.differences)
    after = items(differences(readjudicate(diff, change), diff.theirs))
    return before - after if not after - before else set()


# -- the known classes of difference ----------------------------------------------------


@dataclass(frozen=True)
class DiffClass:
    """A known kind of difference between the two engines.

    ``explains`` gives the items of a differing phase that this kind of difference
    accounts for (empty: none); ``minimal`` is the smallest position (a ``judge
    adjudicate`` document) that shows it; ``rule`` is what decides who is right;
    ``defect`` says whose mistake it is.
    """

    key: str
    title: str
    explains: Callable[[PhaseDiff], set[Item]]
    minimal: dict[str, Any]
    rule: str
    defect: str
    editions: tuple[str, ...] = ("2000", "2023")


def _orders_by_province(diff: PhaseDiff) -> dict[str, tuple[str, Order]]:
    game_map = diff.position.map
    return {game_map.province_of(o.location): (p, o) for p, o in diff.orders()}


def _results_by_province(ours: Adjudication, game_map: Any) -> dict[str, Any]:
    return {game_map.province_of(r.order.location): r for r in ours.results}


def _support_items(diff: PhaseDiff, kind: str) -> list[tuple[Item, str, tuple[str, Order]]]:
    """The ``kind`` support items of ``diff`` with the supporter's province and order."""
    found: list[tuple[Item, str, tuple[str, Order]]] = []
    orders = _orders_by_province(diff)
    game_map = diff.position.map
    for unit in diff.differences.get(kind, {}):
        location = unit.split()[1].lower()
        prov = game_map.province_of({"lyo": "gol"}.get(location, location))
        if prov in orders:
            found.append(((kind, unit), prov, orders[prov]))
    return found


def _is_convoyed(diff: PhaseDiff, prov: str) -> bool:
    """Whether the unit in ``prov`` was ordered to move by convoy (or by sea only)."""
    order = _orders_by_province(diff).get(prov, ("", None))[1]
    if not isinstance(order, Move) or order.unit_type is FLEET:
        return False
    game_map = diff.position.map
    return bool(order.via_convoy) or order.destination not in game_map.army_adj.get(
        order.location, frozenset()
    )


def _province_form(order: Order) -> Order:
    if isinstance(order, SupportMove) and "/" in order.destination:
        return replace(order, destination=order.destination.split("/", 1)[0])
    return order


def coast_support_cut(diff: PhaseDiff) -> set[Item]:
    """Item 1: a support naming a coast, cut by the unit in the province it supports into.

    The same phase with supports in province form (which back a move to either coast,
    so the same support when the fleet moves to the coast named) gives the package's
    outcome; also found when the coast is on the cutting unit's side (``S A Bre-Spa`` cut
    by ``F Spa/sc``).
    """
    suspects = False
    game_map = diff.position.map
    for result in diff.ours.results:
        order = result.order
        if isinstance(order, SupportMove):
            dest = game_map.province_of(order.destination)
            if any(r.note is Note.CUT and r.culprit == dest for r in result.reasons):
                suspects = True
    return explained_by_change(diff, _province_form) if suspects else set()


def _by_land(diff: PhaseDiff) -> Callable[[Order], Order]:
    """Armies ordered via convoy to a neighbour, with no convoy route found, go by land."""
    game_map = diff.position.map
    lost = {
        r.order.location
        for r in diff.ours.results
        if isinstance(r.order, Move) and r.has(Note.NO_CONVOY)
    }

    walkers = {
        loc
        for loc in lost
        if (o := _orders_by_province(diff).get(loc, (None, None))[1]) is not None
        and getattr(o, "destination", None) in game_map.army_adj.get(loc, frozenset())
    }

    def change(order: Order) -> Order:
        # The fleets' convoy orders go too: with them, an army of the same power that is
        # not ordered via convoy still counts as convoyed (convoy intent, DATC 6.G.10).
        if isinstance(order, Move) and order.location in walkers:
            return replace(order, via_convoy=False, route=())
        if isinstance(order, Convoy) and order.target in walkers:
            return Hold(order.unit_type, order.location)
        return order

    return change


def civil_disorder_2000(diff: PhaseDiff) -> set[Item]:
    """2023 rules: units removed in civil disorder that the 2000 rule would have chosen.

    The package measures from the home centres (the 2000 rule); the 2023 rule measures
    from the nearest centre the power owns.  Recognised when our engine under the 2000
    rules gives the package's outcome.
    """
    if diff.position.phase.kind is not PhaseKind.ADJUSTMENT:
        return set()
    other = replace(diff.rules, edition=Edition.R2000)
    orders = {p: list(os) for p, os in diff.record.orders.items()}
    after = items(differences(adjudicate(diff.position, orders, other), diff.theirs))
    before = items(diff.differences)
    return before - after if not after - before else set()


def _distance(diff: PhaseDiff, unit: Any, homes: frozenset[str]) -> int:
    """Moves from ``unit`` to the nearest of ``homes``: fleets by sea, armies by any way."""
    game_map = diff.position.map
    graph: dict[str, set[str]] = {p: set() for p in game_map.provinces}
    for loc, near in game_map.fleet_adj_prov.items():
        graph[game_map.province_of(loc)] |= set(near)
    if unit.type is not FLEET:
        for prov, near in game_map.army_adj.items():
            graph[prov] |= set(near)
    seen = {unit.province: 0}
    queue = [unit.province]
    for here in queue:
        if here in homes:
            return seen[here]
        for nxt in sorted(graph.get(here, ())):
            if nxt not in seen:
                seen[nxt] = seen[here] + 1
                queue.append(nxt)
    return 99


def civil_disorder_by_water(diff: PhaseDiff) -> set[Item]:
    """Civil-disorder removals that follow the 2000 rule with fleets measured by sea.

    The package removes the units farthest from a home centre, fleets counted over water
    only and armies over land and sea (ties: fleets first, then by name).  We count every
    unit over land and sea alike (and, under the 2023 rules, from the nearest owned centre).
    Recognised when exactly the units the package kept and removed differ, for powers
    that left removals to the rule, and the package's choice is that rule's.
    """
    if diff.position.phase.kind is not PhaseKind.ADJUSTMENT:
        return set()
    found = items(diff.differences)
    if any(i[0] != "units" for i in found):
        return set()
    out: set[Item] = set()
    theirs_units = diff.theirs["state"]["units"]
    for power in {i[1] for i in found}:
        name = next(p for p in diff.position.map.powers if p.upper() == power)
        owed = -diff.position.adjustment(name)
        ordered = len(diff.record.orders.get(name, ()))
        if owed <= ordered:
            return set()
        mine = [u for u in diff.position.units.values() if u.power == name]
        ordered_out = {o.location for o in diff.record.orders.get(name, ())}
        left = [u for u in mine if u.location not in ordered_out]
        homes = diff.position.map.home_centres.get(name, frozenset())
        left.sort(
            key=lambda u: (
                -_distance(diff, u, homes),
                0 if u.type is FLEET else 1,
                diff.position.map.province_name[u.province].lower(),
            )
        )
        removed = left[: owed - ordered]
        expected = sorted(package_unit(u.type, u.location) for u in left if u not in removed)
        if sorted(theirs_units.get(power, [])) != expected:
            return set()
        out |= {i for i in found if i[1] == power}
    return out


def land_fallback(diff: PhaseDiff) -> set[Item]:
    """Item 2 (2000 rules): an army via convoy with no whole route should go by land."""
    return explained_by_change(diff, _by_land(diff))


def void_own_unit(diff: PhaseDiff, *, moved_away: bool = False) -> set[Item]:
    """Supports the package calls void where the supporter's own unit is at the target.

    ``moved_away=False``: that unit stays (it holds, or its move fails), so the support
    could only dislodge its own side and cannot be used (item 5: we should say void
    too).  ``moved_away=True``: that unit left, the support was given and we count it;
    the package mostly agrees, but not always (a note only).
    """
    out: set[Item] = set()
    units = diff.position.units
    results = _results_by_province(diff.ours, diff.position.map)
    game_map = diff.position.map
    for item, _prov, (power, order) in _support_items(diff, "support void"):
        if not isinstance(order, SupportMove):
            continue
        sides = diff.differences["support void"][item[1]]
        if sides["ours"] or not sides["theirs"]:
            continue
        dest = game_map.province_of(order.destination)
        there = units.get(dest)
        if there is None or there.power != power:
            continue
        left = dest in results and isinstance(results[dest].order, Move) and (results[dest].success)
        if left == moved_away:
            out.add(item)
    return out


def void_own_unit_wide(diff: PhaseDiff) -> set[Item]:
    """A support onto the supporter's own unit that stays, where we say void and it does not.

    Such a support cannot be used (it could only dislodge its own side), and since item 5
    we call every one void.  The package calls it void only when it would otherwise have
    dislodged the unit (the attack beats the hold without it), and never when the
    attacker comes by convoy (then it counts it: see ``self-dislodged-by-convoy``).
    """
    out: set[Item] = set()
    units = diff.position.units
    game_map = diff.position.map
    results = _results_by_province(diff.ours, game_map)
    for item, _prov, (power, order) in _support_items(diff, "support void"):
        sides = diff.differences["support void"][item[1]]
        if not isinstance(order, SupportMove) or not sides["ours"] or sides["theirs"]:
            continue
        dest = game_map.province_of(order.destination)
        there = units.get(dest)
        if there is None or there.power != power:
            continue
        left = dest in results and isinstance(results[dest].order, Move) and (results[dest].success)
        if not left:
            out.add(item)
    return out


def void_failed_convoy(diff: PhaseDiff) -> set[Item]:
    """Supports of an army whose convoy failed: the package calls them void, we do not."""
    out: set[Item] = set()
    results = _results_by_province(diff.ours, diff.position.map)
    for item, _prov, (_power, order) in _support_items(diff, "support void"):
        sides = diff.differences["support void"][item[1]]
        if not isinstance(order, SupportMove) or sides["ours"] or not sides["theirs"]:
            continue
        mover = results.get(order.target)
        if (
            mover is not None
            and _is_convoyed(diff, order.target)
            and not mover.success
            and (mover.has(Note.NO_CONVOY) or mover.has(Note.DISRUPTED))
        ):
            out.add(item)
            # A void support is not also cut in the package's notes; it is in ours.
            if item[1] in diff.differences.get("support cut", {}):
                out.add(("support cut", item[1]))
    return out


def support_wrong_coast(diff: PhaseDiff) -> set[Item]:
    """A fleet's support naming another coast than the one the fleet moves to.

    We fail it (DATC 6.B.9); the package counts it, as though it named the province.
    The items our engine gives the same way once the support names the move's coast are
    explained too (what the support then changed).
    """
    out: set[Item] = set()
    orders = _orders_by_province(diff)
    for item, _prov, (_power, order) in _support_items(diff, "support void"):
        sides = diff.differences["support void"][item[1]]
        if not isinstance(order, SupportMove) or not sides["ours"] or sides["theirs"]:
            continue
        move = orders.get(order.target, ("", None))[1]
        if (
            "/" in order.destination
            and isinstance(move, Move)
            and move.destination != order.destination
        ):
            out.add(item)
    if not out:
        return out

    def change(order: Order) -> Order:
        if isinstance(order, SupportMove) and "/" in order.destination:
            move = orders.get(order.target, ("", None))[1]
            if isinstance(move, Move) and move.destination[:3] == order.destination[:3]:
                return replace(order, destination=move.destination)
        return order

    return out | explained_by_change(diff, change)


def uncut_by_convoyed_army(diff: PhaseDiff) -> set[Item]:
    """A support of (or into) a convoying fleet's sea, cut by the army that fleet convoys.

    We cut it (no paradox: the convoy's success does not depend on the support); the
    package leaves it uncut, applying the 2000 rulebook's paradox sentence everywhere.
    """
    out: set[Item] = set()
    game_map = diff.position.map
    orders = _orders_by_province(diff)
    results = _results_by_province(diff.ours, game_map)
    for item, prov, (_power, order) in _support_items(diff, "support cut"):
        sides = diff.differences["support cut"][item[1]]
        if not sides["ours"] or sides["theirs"]:
            continue
        culprits = [r.culprit for r in results[prov].reasons if r.note is Note.CUT]
        if isinstance(order, SupportMove):
            sea = game_map.province_of(order.destination)
        elif isinstance(order, SupportHold):
            sea = order.target
        else:
            continue
        convoy = orders.get(sea, (None, None))[1]
        if (
            isinstance(convoy, Convoy)
            and convoy.target in culprits
            and _is_convoyed(diff, convoy.target)
        ):
            out.add(item)
    return out


def convoy_refused(diff: PhaseDiff) -> set[Item]:
    """Convoy orders the package refuses as impossible, where refusing them changes nothing.

    The package refuses a convoy order when it finds no route through that fleet among
    the fleets it knows to convoy (or takes a shorter route without it).  We take any
    convoy order of a fleet at sea that could be on a route; it has no effect unless it
    completes one.  Recognised when our outcome is the same with those fleets holding
    (under the 2000 rules, both with item 2 corrected, since the package's army then goes
    by land whether or not the convoy orders were refused).
    """
    refused = [m for m in diff.differences.get("refused", []) if "CONVOY ORDER" in m]
    if not refused:
        return set()
    fleets = set()
    for message in refused:
        words = message.split(":", 1)[1].split()
        if len(words) > 1:
            location = words[1].lower()
            fleets.add(diff.position.map.province_of({"lyo": "gol"}.get(location, location)))

    def change(order: Order) -> Order:
        if isinstance(order, Convoy) and order.location in fleets:
            return Hold(order.unit_type, order.location)
        return order

    base = _by_land(diff) if diff.rules.land_route_fallback else (lambda o: o)
    kept = readjudicate(diff, base)
    held = readjudicate(diff, lambda o: change(base(o)))
    same = comparable(_package_state(kept.position)) == comparable(_package_state(held.position))
    return {("refused", m) for m in refused} if same else set()


def _dislodged_by_convoy(diff: PhaseDiff) -> dict[str, str]:
    """Province of each unit we dislodged -> the convoyed army's province that did it."""
    out: dict[str, str] = {}
    game_map = diff.position.map
    for result in diff.ours.results:
        for reason in result.reasons:
            culprit = reason.culprit
            if reason.note is Note.DISLODGED and culprit and _is_convoyed(diff, culprit):
                out[game_map.province_of(result.order.location)] = culprit
    return out


def retreats_after_convoy(diff: PhaseDiff) -> set[Item]:
    """A unit dislodged by a convoyed army: the package lets it retreat anywhere adjacent.

    Its list includes occupied provinces (the convoying fleet's sea, the attackers'
    supporters); ours leaves them out, and a unit with nowhere to go is destroyed, which
    the package keeps as a dislodged unit.
    """
    out: set[Item] = set()
    by_convoy = _dislodged_by_convoy(diff)
    units = diff.position.units
    game_map = diff.position.map
    for item in items(diff.differences):
        if item[0] not in ("retreats", "units"):
            continue
        name = item[2].lstrip("*")
        location = name.split()[1].lower()
        prov = game_map.province_of({"lyo": "gol"}.get(location, location))
        if prov not in by_convoy:
            continue
        unit = units.get(prov)
        if unit is None or unit.power.upper() != item[1]:
            continue
        if item[0] == "units" and not item[2].startswith("*"):
            continue
        theirs = diff.theirs["state"].get("retreats", {}).get(item[1], {}).get(name, [])
        if any(r[:3].lower() in units for r in theirs):
            out.add(item)
    phase = diff.differences.get("phase")
    if out and phase and str(phase["theirs"]).endswith("R"):
        out.add(("phase",))  # the retreat phase the package keeps for that unit
        if str(phase["theirs"]).startswith("F") and str(phase["ours"]).startswith("W"):
            # and, in the autumn, the centres it has not yet handed over
            out |= {i for i in items(diff.differences) if i[0] == "centers"}
    return out


def self_dislodged_by_convoy(diff: PhaseDiff) -> set[Item]:
    """The package lets a power's own support dislodge its unit, when the attack is convoyed.

    Recognised when the package dislodges a unit we do not, the attacker is an army
    ordered by convoy, and one of its supports comes from the dislodged unit's power.
    """
    out: set[Item] = set()
    game_map = diff.position.map
    units = diff.position.units
    orders = _orders_by_province(diff)
    theirs = diff.theirs["state"]
    for power, entries in theirs.get("retreats", {}).items():
        for name in entries:
            location = name.split()[1].lower()
            prov = game_map.province_of({"lyo": "gol"}.get(location, location))
            if prov in {game_map.province_of(k) for k in diff.ours.position.dislodged}:
                continue
            attackers = [
                src
                for src, (_p, o) in orders.items()
                if isinstance(o, Move)
                and game_map.province_of(o.destination) == prov
                and _is_convoyed(diff, src)
            ]
            own_supports = [
                o
                for src, (_p, o) in orders.items()
                if isinstance(o, SupportMove)
                and o.target in attackers
                and game_map.province_of(o.destination) == prov
                and units[src].power.upper() == power
            ]
            if attackers and own_supports:
                # and (once we call them so) those supports are void for us, not for it
                out |= {
                    ("support void", package_unit(o.unit_type, o.location)) for o in own_supports
                }
                explained = {
                    i
                    for i in items(diff.differences)
                    if i[0] in ("units", "retreats", "centers", "phase")
                }
                # a dislodged supporter's support is also cut, in the package's notes
                explained.add(("support cut", name))
                out |= explained
    return out


def disrupted_by_own_support(diff: PhaseDiff) -> set[Item]:
    """The package disrupts a convoy whose fleet only its own power's support attacks.

    The attack on the convoying fleet is supported by the fleet's own power; that support
    cannot dislodge its own unit, so the fleet stays and the convoy goes (we move the
    army), while the package reports the convoy disrupted and the army stays.
    """
    game_map = diff.position.map
    units = diff.position.units
    orders = _orders_by_province(diff)
    their_results = diff.theirs.get("results", {})
    found = False
    for prov, (power, order) in orders.items():
        if not isinstance(order, Convoy):
            continue
        if "disrupted" not in their_results.get(package_unit(FLEET, order.location), []):
            continue
        if prov in {game_map.province_of(k) for k in diff.ours.position.dislodged}:
            continue
        attackers = {
            src
            for src, (_p, o) in orders.items()
            if isinstance(o, Move) and game_map.province_of(o.destination) == prov
        }
        if any(
            isinstance(o, SupportMove)
            and o.target in attackers
            and game_map.province_of(o.destination) == prov
            and units[src].power == power
            for src, (_p, o) in orders.items()
        ):
            found = True
    if not found:
        return set()
    return {i for i in items(diff.differences) if i[0] in ("units", "retreats", "centers", "phase")}


#: An army ordered via convoy whose convoy route is not whole (the fleet in the Norwegian
#: Sea moves away): the 2000 rules move it over land, the 2023 rules leave it standing.
_BROKEN_CONVOY_ROUTE: dict[str, Any] = {
    "phase": "S1901M",
    "units": {"England": ["A LVP", "F NAO", "F NWG"], "France": ["A YOR"]},
    "centers": {},
    "orders": {
        "England": ["A Lvp-Edi via convoy", "F Nao C A Lvp-Edi", "F Nwg-Nth"],
        "France": ["A Yor-Edi"],
    },
}

CLASSES: tuple[DiffClass, ...] = (
    DiffClass(
        key="coast-support-cut",
        title="a support naming a coast (or cut from a coast) is cut by the unit in the "
        "province it supports a move into",
        explains=coast_support_cut,
        minimal={
            "phase": "S1901M",
            "units": {"Austria": ["A BUL"], "Russia": ["A RUM"], "Turkey": ["F CON"]},
            "centers": {},
            "orders": {
                "Austria": ["A Bul-Rum"],
                "Russia": ["A Rum S F Con-Bul/ec"],
                "Turkey": ["F Con-Bul/ec"],
            },
        },
        rule="rulebook (2000 p.12, 2023): a support is not cut by the unit in the province "
        "it supports a move into (DATC 6.D.14 ff.); naming the coast changes nothing",
        defect="ours, fixed (issue 10 item 1)",
    ),
    DiffClass(
        key="land-fallback",
        title="2000 rules: an army ordered via convoy that has no whole convoy route "
        "moves over land",
        explains=land_fallback,
        minimal=_BROKEN_CONVOY_ROUTE,
        rule="2000 rulebook with DATC 2.4 preference 4.A.3; DATC 6.G.8 (v2.4)",
        defect="ours, fixed (issue 10 item 2)",
        editions=("2000",),
    ),
    DiffClass(
        key="no-land-fallback-2023",
        title="2023 rules: an army ordered via convoy that has no whole convoy route stays "
        "(the package moves it over land, as the 2000 rules do)",
        explains=land_fallback,
        minimal=_BROKEN_CONVOY_ROUTE,
        rule="2023 rulebook; DATC 3.0 6.G.8 (changed: no land route for an order via convoy)",
        defect="neither: edition difference (the package follows the 2000 rules)",
        editions=("2023",),
    ),
    DiffClass(
        key="civil-disorder-2023",
        title="2023 rules: civil-disorder removals counted from the nearest owned centre "
        "(the package counts from the home centres, as the 2000 rules do)",
        explains=civil_disorder_2000,
        minimal={
            "phase": "W1901A",
            "units": {"Germany": ["A PAR", "A KIE"]},
            "centers": {"Germany": ["PAR"]},
            "orders": {},
        },
        rule="2023 rulebook (civil disorder: distance to the nearest owned supply centre); "
        "2000 rulebook: nearest home centre",
        defect="neither: edition difference (the package follows the 2000 rules)",
        editions=("2023",),
    ),
    DiffClass(
        key="civil-disorder-by-water",
        title="civil-disorder removals: the package measures a fleet's distance to the home "
        "centres over water only; we measure it over land and sea",
        explains=civil_disorder_by_water,
        minimal={
            "phase": "W1901A",
            "units": {"Austria": ["A NAF", "F GOL", "A VIE"]},
            "centers": {"Austria": ["VIE", "BUD"]},
            "orders": {},
        },
        rule="2000 rules with DATC 2.4 preference (civil disorder, 6.J): distances for "
        "fleets over water only; 2023 rulebook: from the nearest owned centre",
        defect="2000 rules: ours, fixed (issue 10 item 3); 2023 rules: edition difference",
    ),
    DiffClass(
        key="disrupted-by-own-support",
        title="a convoying fleet attacked with a support from its own power is not "
        "dislodged: we convoy the army, the package calls the convoy disrupted",
        explains=disrupted_by_own_support,
        minimal={
            "phase": "S1901M",
            "units": {"Italy": ["A PIE", "F GOL", "F TYS"], "France": ["F MAR"]},
            "centers": {},
            "orders": {
                "Italy": ["A Pie-Spa via convoy", "F Gol C A Pie-Spa", "F Tys S F Mar-Gol"],
                "France": ["F Mar-Gol"],
            },
        },
        rule="DATC 6.D.10 (a power's support cannot dislodge its own unit) and 6.F.4 (an "
        "attacked convoy is not disrupted: only a dislodged fleet breaks it)",
        defect="the diplomacy package's",
    ),
    DiffClass(
        key="void-own-unit",
        title="a support of a move onto the supporter's own unit that stays: the package "
        "reports it void, we do not",
        explains=void_own_unit,
        minimal={
            "phase": "S1901M",
            "units": {"England": ["F NTH", "A WAL", "F YOR"]},
            "centers": {},
            "orders": {"England": ["F Nth S A Wal-Yor", "A Wal-Yor", "F Yor-Nth"]},
        },
        rule="DATC 6.D.10/6.D.11 (no self-dislodgement): the support cannot be used; "
        "the results note is the judge's convention (njudge: void)",
        defect="ours before issue 10 item 5 (fixed); what remains is the package's: a "
        "support whose prevent strength stopped another move that would otherwise have won "
        "did count, and we do not call it void; note only",
    ),
    DiffClass(
        key="void-own-unit-wide",
        title="a support onto the supporter's own unit that stays, which could not have "
        "dislodged it anyway: we (since item 5) report it void, the package does not",
        explains=void_own_unit_wide,
        minimal={
            "phase": "S1901M",
            "units": {"Turkey": ["A CON", "A BUL", "A SER", "F RUM"]},
            "centers": {},
            "orders": {"Turkey": ["A Con-Bul", "A Ser S A Con-Bul", "A Bul H", "F Rum S A Bul"]},
        },
        rule="DATC 6.D.10/6.D.11: the support cannot be used; which such supports the "
        "results call void is the judge's convention (the package: only one that would "
        "otherwise dislodge; also not for a convoyed attacker)",
        defect="neither (note only): we report void every support that cannot be used "
        "because its move would dislodge the supporter's own unit, so the supporter "
        "learns why; the package only those that would otherwise have dislodged it",
    ),
    DiffClass(
        key="void-failed-convoy",
        title="a support of an army whose convoy failed: the package reports it void, we do not",
        explains=void_failed_convoy,
        minimal={
            "phase": "S1901M",
            "units": {"France": ["A SPA", "F MAO", "F ENG", "A BUR"]},
            "centers": {},
            "orders": {
                "France": [
                    "A Spa-Bel via convoy",
                    "F Mao-Nao",
                    "F Eng C A Spa-Bel",
                    "A Bur S A Spa-Bel",
                ]
            },
        },
        rule="the support matches an order given, so it is valid (rulebook: supports); the "
        "move fails for want of a convoy (DATC 6.F.2 ff.); notes are convention",
        defect="the diplomacy package's; note only",
    ),
    DiffClass(
        key="support-wrong-coast",
        title="a fleet's support naming another coast than the move's: we fail it, the "
        "package counts it",
        explains=support_wrong_coast,
        minimal={
            "phase": "S1901M",
            "units": {"France": ["F POR", "F MAO"], "Italy": ["F GOL", "F WES"]},
            "centers": {},
            "orders": {
                "France": ["F Por S F Mao-Spa/nc", "F Mao-Spa/sc"],
                "Italy": ["F Gol S F Wes-Spa/sc", "F Wes-Spa/sc"],
            },
        },
        rule="DATC 6.B.9 (this is the case): a support naming another coast fails, so "
        "Italy's fleet reaches Spain's south coast",
        defect="the diplomacy package's",
    ),
    DiffClass(
        key="void-own-unit-left",
        title="a support of a move into a province the supporter's own unit left: the "
        "package reports it void, we count it",
        explains=lambda d: void_own_unit(d, moved_away=True),
        minimal={
            "phase": "S1901M",
            "units": {
                "Austria": ["A TRI", "A SER", "A BUD", "F BUL/SC"],
                "Turkey": ["F GRE", "F CON"],
            },
            "centers": {},
            "orders": {
                "Austria": ["A Tri-Ser", "A Bud S A Tri-Ser", "A Ser-Gre", "F Bul/sc-Gre"],
                "Turkey": ["F Gre-Bul/sc", "F Con S F Gre-Bul/sc"],
            },
        },
        rule="rulebook (supports): a support of a move that is made is given; only "
        "dislodging the supporter's own unit is barred (DATC 6.D.10), and that unit left",
        defect="the diplomacy package's; note only",
    ),
    DiffClass(
        key="uncut-by-convoyed-army",
        title="a support of the convoying fleet (or into its sea), attacked by the army "
        "it convoys: we cut it, the package does not",
        explains=uncut_by_convoyed_army,
        minimal={
            "phase": "S1901M",
            "units": {"France": ["F SPA/SC"], "Italy": ["A BRE", "F MAO"]},
            "centers": {},
            "orders": {
                "France": ["F Spa/sc S F Mao"],
                "Italy": ["A Bre-Spa via convoy", "F Mao C A Bre-Spa"],
            },
        },
        rule="DATC 4.A.2 (Szykman, the DATC 2.4 and 3.0 preference) and 6.F.14-6.F.18: a "
        "convoyed army's attack is left uncut only when the convoy is in a paradox; "
        "nothing attacks the fleet here",
        defect="the diplomacy package's (2000 rulebook paradox sentence applied literally); "
        "note only unless the support matters",
    ),
    DiffClass(
        key="convoy-refused",
        title="a convoy order with no whole route of convoying fleets: the package refuses "
        "it, we take it (it has no effect)",
        explains=convoy_refused,
        minimal={
            "phase": "S1901M",
            "units": {"Italy": ["A TUN", "F TYS", "F WES"]},
            "centers": {},
            "orders": {"Italy": ["A Tun-Spa via convoy", "F Tys C A Tun-Spa", "F Wes-Naf"]},
        },
        rule="rulebook (convoys): a fleet at sea may be ordered to convoy; without the "
        "other fleets of a route the convoy fails and the army stays (DATC 6.F.2)",
        defect="neither: the package checks the route when the order is given; the "
        "outcome is the same",
    ),
    DiffClass(
        key="retreats-after-convoy",
        title="a unit dislodged by a convoyed army: the package lets it retreat to "
        "occupied provinces",
        explains=retreats_after_convoy,
        minimal={
            "phase": "S1901M",
            "units": {"Russia": ["A ANK", "F BLA", "A CON"], "Turkey": ["F BUL/EC", "A RUM"]},
            "centers": {},
            "orders": {
                "Russia": ["A Ank-Bul via convoy", "F Bla C A Ank-Bul", "A Con S A Ank-Bul"],
                "Turkey": ["F Bul/ec H", "A Rum H"],
            },
        },
        rule="rulebook (retreats): a unit may not retreat to an occupied province (DATC 6.H.1 ff.)",
        defect="the diplomacy package's",
    ),
    DiffClass(
        key="self-dislodged-by-convoy",
        title="a power's own support helps a convoyed army dislodge its unit (the package)",
        explains=self_dislodged_by_convoy,
        minimal={
            "phase": "S1901M",
            "units": {"France": ["F SPA/SC", "A POR"], "Italy": ["A BRE", "F MAO"]},
            "centers": {},
            "orders": {
                "France": ["F Spa/sc-Por", "A Por S A Bre-Spa"],
                "Italy": ["A Bre-Spa via convoy", "F Mao C A Bre-Spa"],
            },
        },
        rule="DATC 6.D.10 and 6.D.11 (a power cannot dislodge its own unit, also one that "
        "failed to move away); that the attacker came by convoy changes nothing",
        defect="the diplomacy package's",
    ),
)


def classify(diff: PhaseDiff) -> tuple[list[str], set[Item]]:
    """The known classes that explain part of ``diff``, and the items none explains."""
    edition = diff.rules.edition.value
    left = items(diff.differences)
    keys = []
    for cls in CLASSES:
        if edition not in cls.editions:
            continue
        explained = cls.explains(diff) & left if left else set()
        if explained:
            keys.append(cls.key)
            left -= explained
    return keys, left


# -- minimal positions ------------------------------------------------------------------


def record_from_document(doc: Mapping[str, Any], rules: Rules) -> PhaseRecord:
    """A movement phase given as a ``judge adjudicate`` document, as a :class:`PhaseRecord`.

    The orders keep their text (what our engine is given) and are read into checked
    values (what the package's syntax is made from); every order must be legal.
    """
    position = position_from_document(doc)
    game_map = position.map
    orders: dict[str, tuple[Order, ...]] = {}
    texts: dict[str, tuple[str, ...]] = {}
    for power, written in doc.get("orders", {}).items():
        name = power  # canonical names ("Austria"), as the class table writes them
        values = tuple(
            check_movement(position, name, parse_order(t, game_map, position.phase.kind), rules)
            for t in written
        )
        orders[name] = values
        texts[name] = tuple(written)
    out = adjudicate(position, {p: list(t) for p, t in texts.items()}, rules)
    return PhaseRecord(
        phase=position.phase.code,
        document=position_to_document(position),
        orders=orders,
        texts=texts,
        position=position,
        adjudication=out,
    )


def check_minimal(rules: Rules) -> int:
    """Run every class's minimal position through both engines; 1 if one is not recognised."""
    edition = rules.edition.value
    chosen = [c for c in CLASSES if edition in c.editions]
    records = [record_from_document(c.minimal, rules) for c in chosen]
    answers = run_package([package_phase(i, r) for i, r in enumerate(records)])
    bad = 0
    for cls, record, theirs in zip(chosen, records, answers, strict=True):
        ours = record.adjudication
        found = differences(ours, theirs)
        diff = PhaseDiff(0, record, rules, ours, theirs, found)
        keys, left = classify(diff) if found else ([], set())
        fixed = not found and "ours" in cls.defect
        # a defect of ours, once fixed, may still leave an edition difference
        ok = fixed or (not left and (cls.key in keys or (keys and "ours" in cls.defect)))
        bad += not ok
        status = "ok " if ok else "BAD"
        seen = "no difference any more (fixed)" if fixed else f"recognised as {keys or 'nothing'}"
        print(f"{status} {cls.key}: {seen}")
        print(f"    {json.dumps(cls.minimal)}")
        print(f"    differences: {json.dumps(found)}")
        if left:
            print(f"    unexplained: {sorted(left)}")
    return 1 if bad else 0


# -- the run ----------------------------------------------------------------------------


def build(
    games: int, first_seed: int, last_year: int, rules: Rules
) -> list[tuple[int, PhaseRecord]]:
    """The phases of the seeded games, each with the seed it came from."""
    out = []
    for seed in range(first_seed, first_seed + games):
        for record in play_game(
            seed, last_year, rules, coasts=True, missed_removals=MISSED_REMOVALS
        ):
            out.append((seed, record))
    return out


def package_phase(index: int, record: PhaseRecord) -> dict[str, Any]:
    """One phase as input for ``diplomacy_phases.py``."""
    return {
        "id": index,
        "state": _package_state(record.position),
        "orders": {
            power.upper(): [to_diplomacy(o, record.position) for o in orders]
            for power, orders in record.orders.items()
        },
    }


def run_package(phases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The package's answers to ``phases`` (in order), from its own venv."""
    if not DIPLOMACY_PYTHON.exists():
        raise SystemExit(
            f"no {DIPLOMACY_PYTHON}; create it with\n"
            "  python3 -m venv benchmarks/.venv-diplomacy && "
            "benchmarks/.venv-diplomacy/bin/pip install diplomacy"
        )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "phases.json"
        path.write_text(json.dumps({"phases": phases}), encoding="utf-8")
        done = subprocess.run(
            [str(DIPLOMACY_PYTHON), str(PHASES_SCRIPT), str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode != 0:
        raise SystemExit(f"diplomacy_phases.py failed:\n{done.stderr}")
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    answers.sort(key=lambda a: a["id"])
    return answers


def compare(
    phases: list[tuple[int, PhaseRecord]], answers: list[dict[str, Any]], rules: Rules
) -> list[PhaseDiff]:
    """Adjudicate every phase with our engine (from text) and keep those that differ."""
    out = []
    for (seed, record), theirs in zip(phases, answers, strict=True):
        ours = adjudicate(record.position, {p: list(t) for p, t in record.texts.items()}, rules)
        if ours.rejected:
            raise SystemExit(
                f"seed {seed} {record.phase}: we rejected our own orders: "
                + "; ".join(r.message for r in ours.rejected)
            )
        found = differences(ours, theirs)
        if found:
            out.append(PhaseDiff(seed, record, rules, ours, theirs, found))
    return out


def describe(diff: PhaseDiff) -> str:
    """A differing phase in full: where it came from, the input document, the differences."""
    return (
        f"seed {diff.seed} {diff.record.phase} (rules {diff.rules.edition.value})\n"
        f"  judge adjudicate input: {json.dumps(diff.document())}\n"
        f"  differences: {json.dumps(diff.differences)}\n"
        f"  package results: {json.dumps(diff.theirs.get('results', {}))}"
    )


def main(argv: list[str] | None = None) -> int:
    """Run the comparison, print the figures; exit 1 if a difference is unexplained."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60, help="games played (60)")
    parser.add_argument("--first-seed", type=int, default=1, help="first seed (1)")
    parser.add_argument("--last-year", type=int, default=1930, help="last year played (1930)")
    parser.add_argument("--rules", default="2000", help="our rules edition: 2000 or 2023")
    parser.add_argument("--show", type=int, default=1, help="examples shown per class (1)")
    parser.add_argument(
        "--answers",
        help="file to keep the package's answers in and read them from on a later run with "
        "the same games (to work on the classifier without running the package again)",
    )
    parser.add_argument(
        "--unexplained", type=int, default=50, help="unexplained phases printed in full (50)"
    )
    parser.add_argument(
        "--check-minimal",
        action="store_true",
        help="only run each class's minimal position through both engines",
    )
    args = parser.parse_args(argv)
    rules = Rules.parse_edition(args.rules)
    if args.check_minimal:
        return check_minimal(rules)
    started = time.perf_counter()
    phases = build(args.games, args.first_seed, args.last_year, rules)
    built = time.perf_counter()
    asked_for = [package_phase(i, r) for i, (_, r) in enumerate(phases)]
    # The saved answers are used only for the very same phases (same games, same engine).
    key = hashlib.sha256(json.dumps(asked_for, sort_keys=True).encode()).hexdigest()
    saved = Path(args.answers) if args.answers else None
    stored = json.loads(saved.read_text(encoding="utf-8")) if saved and saved.exists() else {}
    if isinstance(stored, dict) and stored.get("key") == key:
        answers = stored["answers"]
    else:
        answers = run_package(asked_for)
        if saved:
            saved.write_text(json.dumps({"key": key, "answers": answers}), encoding="utf-8")
    asked = time.perf_counter()
    diffs = compare(phases, answers, rules)
    per_class: Counter[str] = Counter()
    examples: dict[str, list[PhaseDiff]] = {}
    unexplained: list[PhaseDiff] = []
    for diff in diffs:
        keys, left = classify(diff)
        if left:
            diff.differences["unexplained items"] = sorted(" ".join(i) for i in left)
            unexplained.append(diff)
        for key in keys:
            per_class[key] += 1
            examples.setdefault(key, []).append(diff)
    done = time.perf_counter()
    print(
        f"games: {args.games} (seeds {args.first_seed}-{args.first_seed + args.games - 1}, "
        f"S1901M to W{args.last_year}A or a solo), our rules {args.rules}"
    )
    kinds = Counter(r.position.phase.kind for _, r in phases)
    print(
        f"phases compared: {len(phases)} ("
        + ", ".join(f"{kinds[k]} {k.name.lower()}" for k in PhaseKind)
        + ")"
    )
    print("  " + ", ".join(f"{n} {what}" for what, n in exercised(phases).items()))
    print(f"phases differing: {len(diffs)} (a phase may show several classes)")
    for cls in CLASSES:
        print(f"  {per_class[cls.key]:6d}  {cls.key}: {cls.title} [{cls.defect}]")
        for diff in examples.get(cls.key, [])[: args.show]:
            print("    e.g. " + describe(diff).replace("\n", "\n    "))
    print(f"  {len(unexplained):6d}  unexplained")
    for diff in unexplained[: args.unexplained]:
        print("UNEXPLAINED " + describe(diff))
    if len(unexplained) > args.unexplained:
        print(f"... and {len(unexplained) - args.unexplained} more unexplained")
    shapes = Counter(" + ".join(sorted(d.differences)) for d in unexplained)
    for shape, n in shapes.most_common():
        print(f"  unexplained: {n} x {shape}")
    print(
        f"time: games {built - started:.1f} s, package {asked - built:.1f} s, "
        f"ours and classifying {done - asked:.1f} s"
    )
    return 1 if unexplained else 0


def exercised(phases: list[tuple[int, PhaseRecord]]) -> dict[str, int]:
    """How many phases have each kind of order naming a coast (what the run exercises)."""
    counts: Counter[str] = Counter()
    for _, record in phases:
        units = record.position.units
        texts = [t for ts in record.texts.values() for t in ts]
        orders = [o for os in record.orders.values() for o in os]
        seen = set()
        for order, text in zip(orders, texts, strict=True):
            if isinstance(order, SupportMove) and "/" in order.destination:
                seen.add("with a support of a move to a coast")
            if isinstance(order, (SupportHold, SupportMove)):
                target = units.get(order.target)
                if target is not None and target.type is FLEET and "/" in target.location:
                    seen.add("with a support naming a fleet on a coast")
            if isinstance(order, Convoy) and "/" not in text:
                dest = getattr(order, "destination", "")
                if dest in record.position.map.coasts:
                    seen.add("with a convoy to a province with coasts")
            if isinstance(order, Move) and "/" in getattr(order, "destination", ""):
                seen.add("with a fleet move to a coast")
        counts.update(seen)
    return dict(sorted(counts.items()))


if __name__ == "__main__":
    raise SystemExit(main())
