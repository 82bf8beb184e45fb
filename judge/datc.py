"""DATC test cases: the jDip case format, the project's own format, and a runner.

The jDip "TestSuite" format (``CASE``, ``PRESTATE_SETPHASE``, ``PRESTATE``, ``ORDERS``,
``POSTSTATE`` ...) is what the published DATC transcriptions use; ``judge datc FILE``
reads it.  The project keeps its own transcription of the cases under ``tests/datc/`` in
a simpler format (see :func:`parse_cases`), which also records the rejection code that
every illegal order must get.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from judge.engine.adjudicator import adjudicate
from judge.engine.board import Map, standard_map
from judge.engine.legality import retreat_locations
from judge.engine.phases import Phase, PhaseKind, Season
from judge.engine.position import Dislodged, Position
from judge.engine.rules import Rules
from judge.engine.units import Unit, UnitType

UnitSpec = tuple[str, str, str]  # power, "A"/"F", location


@dataclass
class Case:
    """One adjudicator test case, whatever file format it came from."""

    name: str
    phase: Phase
    units: list[UnitSpec] = field(default_factory=list)
    centres: list[tuple[str, str]] | None = None  # (power, centre)
    dislodged: list[tuple[UnitSpec, tuple[str, ...] | None]] = field(default_factory=list)
    #: Movement results of the previous phase (jDip only): used to work out retreats.
    prior: list[tuple[bool, str, str]] = field(default_factory=list)
    orders: list[tuple[str, str, str | None]] = field(default_factory=list)  # power, text, code
    after: list[UnitSpec] | None = None  # None: same as before
    after_dislodged: list[UnitSpec] = field(default_factory=list)
    title: str = ""
    #: Every rejected order must carry its expected code (the project's own files).
    strict: bool = False


class CaseFormatError(ValueError):
    """A malformed case file; the message names the line."""


# -- jDip format ----------------------------------------------------------------------

_SECTIONS = {
    "PRESTATE",
    "PRESTATE_SUPPLYCENTER_OWNERS",
    "PRESTATE_DISLODGED",
    "PRESTATE_RESULTS",
    "ORDERS",
    "POSTSTATE",
    "POSTSTATE_DISLODGED",
}


def _strip_comment(line: str) -> str:
    return line.split("#", 1)[0].strip()


def parse_jdip(text: str, game_map: Map | None = None) -> list[Case]:
    """Read a file in the jDip TestSuite format."""
    game_map = game_map or standard_map()
    cases: list[Case] = []
    case: Case | None = None
    section = ""
    for number, raw in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw)
        if not line:
            continue
        word = line.split()[0]
        if word == "CASE":
            case = Case(line[4:].strip(), Phase(1901, Season.SPRING, PhaseKind.MOVEMENT))
            case.title = case.name
            case.name = case.name.split()[0]
            section = ""
            continue
        if word == "VARIANT_ALL":
            continue
        if case is None:
            raise CaseFormatError(f"line {number}: {line!r} outside a CASE")
        if word == "PRESTATE_SETPHASE":
            case.phase = _jdip_phase(line[len(word) :], number)
        elif word == "POSTSTATE_SAME":
            case.after = None
            section = ""
        elif word == "END":
            cases.append(case)
            case = None
        elif word in _SECTIONS and line == word:
            section = word
            if word == "POSTSTATE":
                case.after = []
        else:
            _jdip_line(case, section, line, number, game_map)
    if case is not None:
        raise CaseFormatError(f"case {case.name} has no END")
    return cases


def _jdip_phase(text: str, number: int) -> Phase:
    m = re.match(r"\s*(\w+)\s+(\d+)\s*,\s*(\w+)", text)
    if not m:
        raise CaseFormatError(f"line {number}: bad phase {text.strip()!r}")
    season = {"spring": Season.SPRING, "fall": Season.FALL, "autumn": Season.FALL}.get(
        m.group(1).lower(), Season.WINTER
    )
    kind = {"movement": PhaseKind.MOVEMENT, "retreat": PhaseKind.RETREAT}.get(
        m.group(3).lower(), PhaseKind.ADJUSTMENT
    )
    if kind is PhaseKind.ADJUSTMENT:
        season = Season.WINTER
    return Phase(int(m.group(2)), season, kind)


def _split_power(text: str) -> tuple[str, str]:
    """``England: F nth`` (or, leniently, ``England F nth``) -> power text, rest."""
    if ":" in text:
        power_text, _, rest = text.partition(":")
    else:
        power_text, _, rest = text.partition(" ")
    return power_text, rest


def _unit_spec(text: str, number: int, game_map: Map) -> UnitSpec:
    power_text, rest = _split_power(text)
    power = game_map.find_power(power_text.strip())
    parts = rest.split()
    if power is None or len(parts) < 2 or parts[0].upper() not in ("A", "F"):
        raise CaseFormatError(f"line {number}: expected 'Power: A prov', got {text!r}")
    location = game_map.find_location(" ".join(parts[1:]))
    if location is None:
        raise CaseFormatError(f"line {number}: unknown province in {text!r}")
    return power, parts[0].upper(), location


def _jdip_line(case: Case, section: str, line: str, number: int, game_map: Map) -> None:
    if section in ("PRESTATE", "POSTSTATE", "POSTSTATE_DISLODGED", "PRESTATE_DISLODGED"):
        spec = _unit_spec(line, number, game_map)
        if section == "PRESTATE":
            case.units.append(spec)
        elif section == "POSTSTATE":
            assert case.after is not None
            case.after.append(spec)
        elif section == "POSTSTATE_DISLODGED":
            case.after_dislodged.append(spec)
        else:
            case.dislodged.append((spec, None))
    elif section == "PRESTATE_SUPPLYCENTER_OWNERS":
        power, _type, location = _unit_spec(line, number, game_map)
        if case.centres is None:
            case.centres = []
        case.centres.append((power, game_map.province_of(location)))
    elif section == "PRESTATE_RESULTS":
        verdict, _, rest = line.partition(":")
        power_text, _, order = rest.partition(":")
        issuer = game_map.find_power(power_text.strip())
        if issuer is None:
            raise CaseFormatError(f"line {number}: unknown power in {line!r}")
        case.prior.append((verdict.strip().upper() == "SUCCESS", issuer, order.strip()))
    elif section == "ORDERS":
        power_text, order = _split_power(line)
        orderer = game_map.find_power(power_text.strip())
        if orderer is None:
            raise CaseFormatError(f"line {number}: unknown power in {line!r}")
        case.orders.append((orderer, order.strip(), None))
    else:
        raise CaseFormatError(f"line {number}: {line!r} outside a section")


# -- the project's own format ---------------------------------------------------------

_OWN_HELP = """\
A case file holds blocks separated by blank lines; '#' starts a comment.
  case <name> [title]        starts a case
  phase <code>               S1901M, F1901R, W1901A ...
  unit <Power> <A|F> <loc>   a unit on the board
  centre <Power> <prov>...   centres owned (all listed centres; default: 1901 owners)
  dislodged <Power> <A|F> <loc> [<retreat> ...]   a dislodged unit and its retreats
  order <Power> <order text> [=> <CODE>]   an order; with '=> CODE' it must be rejected
  after <Power> <A|F> <loc>  a unit after the phase ('after same': nothing moved)
  gone <Power> <A|F> <loc>   a unit dislodged by the movement phase
"""


def parse_cases(text: str, game_map: Map | None = None) -> list[Case]:
    """Read the project's own case format (see the module source for the grammar)."""
    game_map = game_map or standard_map()
    cases: list[Case] = []
    case: Case | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("order") else raw.strip()
        if line.startswith("order"):
            line = line.split(" #", 1)[0].strip()
        if not line:
            continue
        word, _, rest = line.partition(" ")
        rest = rest.strip()
        if word == "case":
            if case is not None:
                cases.append(case)
            name, _, title = rest.partition(" ")
            case = Case(
                name,
                Phase(1901, Season.SPRING, PhaseKind.MOVEMENT),
                title=title.strip(),
                strict=True,
            )
            continue
        if case is None:
            raise CaseFormatError(f"line {number}: {line!r} before any 'case'\n{_OWN_HELP}")
        try:
            if word == "phase":
                case.phase = Phase.parse(rest)
            elif word == "unit":
                case.units.append(_own_unit(rest, game_map))
            elif word == "centre":
                power, *provs = rest.split()
                owner = game_map.find_power(power)
                if owner is None:
                    raise ValueError(f"unknown power {power!r}")
                if case.centres is None:
                    case.centres = []
                case.centres.extend((owner, p) for p in provs)
            elif word == "dislodged":
                power, kind, loc, *retreats = rest.split()
                spec = _own_unit(f"{power} {kind} {loc}", game_map)
                case.dislodged.append((spec, tuple(retreats)))
            elif word == "order":
                power, _, body = rest.partition(" ")
                owner = game_map.find_power(power)
                if owner is None:
                    raise ValueError(f"unknown power {power!r}")
                code: str | None = None
                if "=>" in body:
                    body, _, code = body.rpartition("=>")
                    code = code.strip()
                case.orders.append((owner, body.strip(), code))
            elif word == "after":
                if rest == "same":
                    case.after = None
                else:
                    if case.after is None:
                        case.after = []
                    case.after.append(_own_unit(rest, game_map))
            elif word == "gone":
                case.after_dislodged.append(_own_unit(rest, game_map))
            else:
                raise ValueError(f"unknown keyword {word!r}")
        except ValueError as err:
            raise CaseFormatError(f"line {number}: {err}\n{_OWN_HELP}") from None
    if case is not None:
        cases.append(case)
    return cases


def _own_unit(text: str, game_map: Map) -> UnitSpec:
    parts = text.split()
    if len(parts) != 3 or parts[1] not in ("A", "F"):
        raise ValueError(f"expected '<Power> <A|F> <location>', got {text!r}")
    power = game_map.find_power(parts[0])
    location = game_map.find_location(parts[2])
    if power is None or location is None:
        raise ValueError(f"unknown power or location in {text!r}")
    return power, parts[1], location


def format_cases(cases: list[Case], header: str = "") -> str:
    """Write cases in the project's own format (the inverse of :func:`parse_cases`)."""
    out: list[str] = [header.rstrip()] if header else []
    for case in cases:
        lines = [
            f"case {case.name}" + (f" {case.title}" if case.title else ""),
            f"phase {case.phase}",
        ]
        if case.centres is not None:
            owners: dict[str, list[str]] = {}
            for power, prov in case.centres:
                owners.setdefault(power, []).append(prov)
            lines += [f"centre {p} {' '.join(provs)}" for p, provs in owners.items()]
        lines += [f"unit {p} {t} {loc}" for p, t, loc in case.units]
        for (p, t, loc), retreats in case.dislodged:
            lines.append(f"dislodged {p} {t} {loc}" + "".join(f" {r}" for r in retreats or ()))
        for power, text, code in case.orders:
            lines.append(f"order {power} {text}" + (f"  => {code}" if code else ""))
        if case.after is None:
            lines.append("after same")
        else:
            lines += [f"after {p} {t} {loc}" for p, t, loc in case.after]
        lines += [f"gone {p} {t} {loc}" for p, t, loc in case.after_dislodged]
        out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


# -- running --------------------------------------------------------------------------


@dataclass
class Outcome:
    """The verdict on one case."""

    case: Case
    passed: bool
    problems: list[str]
    rejected: list[tuple[str, str]]  # (order text, code)


def _unit(spec: UnitSpec) -> Unit:
    power, kind, location = spec
    return Unit(power, UnitType(kind), location)


def starting_position(case: Case, game_map: Map) -> Position:
    """The position a case starts from (retreat options worked out when not given)."""
    centres = {prov: power for power, prov in case.centres} if case.centres is not None else None
    units = [_unit(s) for s in case.units]
    dislodged: list[Dislodged] = []
    occupied = {u.province for u in units}
    for spec, retreats in case.dislodged:
        unit = _unit(spec)
        if retreats is None:
            retreats = jdip_retreats(case, unit, occupied, game_map)
        else:
            # A fleet's option naming a split province means the coasts it can reach.
            retreats = tuple(
                sorted({loc for r in retreats for loc in retreat_locations(game_map, unit, r)})
            )
        dislodged.append(Dislodged(unit, None, tuple(retreats)))
    return Position.build(game_map, case.phase, units, centres, dislodged)


def jdip_retreats(case: Case, unit: Unit, occupied: set[str], game_map: Map) -> tuple[str, ...]:
    """Retreat options of a dislodged unit from the previous phase's results.

    The attacker is the successful move into the unit's province; provinces where a
    move failed and that stand empty were left vacant by a stand-off.
    """
    from judge.engine.notation import parse_order
    from judge.engine.orders import Move

    attacker: str | None = None
    standoff: set[str] = set()
    moves: list[tuple[bool, str, str, bool]] = []
    for success, _power, text in case.prior:
        try:
            order = parse_order(text, game_map)
        except ValueError:
            continue
        if isinstance(order, Move):
            dest = game_map.province_of(order.destination)
            by_sea = order.via_convoy or (
                order.unit_type is UnitType.ARMY
                and dest not in game_map.army_adj.get(order.province, frozenset())
            )
            moves.append((success, order.province, dest, by_sea))
    won = {(src, dest) for success, src, dest, _sea in moves if success}
    for success, src, dest, by_sea in moves:
        if success and dest == unit.province:
            # An attacker that came by convoy does not close its origin (DATC 6.H.11).
            attacker = None if by_sea else src
        elif not success and dest not in occupied and (dest, src) not in won:
            # A unit that lost a head-to-head battle contests nothing.
            standoff.add(dest)
    options = (
        game_map.army_adj.get(unit.location, frozenset())
        if unit.type is UnitType.ARMY
        else game_map.fleet_adj.get(unit.location, frozenset())
    )
    return tuple(
        sorted(
            loc
            for loc in options
            if (p := game_map.province_of(loc)) not in occupied
            and p not in standoff
            and p != attacker
        )
    )


def _norm(specs: list[UnitSpec], actual: set[UnitSpec]) -> set[UnitSpec]:
    out = set()
    provinces_with_coast = {(p, t, loc.split("/")[0]): loc for p, t, loc in actual}
    for p, t, loc in specs:
        if "/" not in loc and (p, t, loc) in provinces_with_coast:
            loc = provinces_with_coast[(p, t, loc)]
        out.add((p, t, loc))
    return out


def run_case(case: Case, rules: Rules | None = None, game_map: Map | None = None) -> Outcome:
    """Adjudicate one case and compare with its expectations."""
    game_map = game_map or standard_map()
    problems: list[str] = []
    try:
        position = starting_position(case, game_map)
        outcome = adjudicate(position, [(p, t) for p, t, _c in case.orders], rules or Rules())
    except Exception as err:  # a broken case is reported, not raised
        return Outcome(case, False, [f"error: {type(err).__name__}: {err}"], [])
    rejected = [(r.text, r.code) for r in outcome.rejected]
    if case.phase.kind is PhaseKind.MOVEMENT:
        after_units = {u for u in outcome.position.units.values()}
        # Like the jDip files, list the dislodged units that may retreat; a unit with
        # nowhere to go is destroyed at once and shows in neither list.
        gone = [d.unit for d in outcome.position.dislodged.values()]
    else:
        after_units = set(outcome.position.units.values())
        gone = []
    actual = {(u.power, u.type.value, u.location) for u in after_units}
    actual_gone = {(u.power, u.type.value, u.location) for u in gone}
    expected = {(p, t, loc) for p, t, loc in case.units} if case.after is None else set(case.after)
    expected = _norm(list(expected), actual)
    expected_gone = _norm(case.after_dislodged, actual_gone)
    if case.after is None and case.phase.kind is not PhaseKind.MOVEMENT:
        expected = _norm([s for s, _r in case.dislodged] + list(case.units), actual)
    if actual != expected:
        problems.append(
            "units: expected " + _fmt(expected - actual) + " but got " + _fmt(actual - expected)
        )
    if actual_gone != expected_gone:
        problems.append(
            "dislodged: expected "
            + _fmt(expected_gone - actual_gone)
            + " but got "
            + _fmt(actual_gone - expected_gone)
        )
    want_codes = [(t, c) for _p, t, c in case.orders if c]
    for text, code in want_codes:
        got = [c for t, c in rejected if t == text]
        if code not in got:
            problems.append(f"order {text!r}: expected rejection {code}, got {got or 'accepted'}")
    if case.strict:
        flagged = {t for _p, t, c in case.orders if c}
        for text, code in rejected:
            if text not in flagged and code != "REPLACED":
                problems.append(f"order {text!r}: unexpectedly rejected with {code}")
    return Outcome(case, not problems, problems, rejected)


def _fmt(specs: set[UnitSpec]) -> str:
    return "{" + ", ".join(f"{p} {t} {loc}" for p, t, loc in sorted(specs)) + "}" if specs else "{}"


def run_file(text: str, rules: Rules | None = None) -> Iterator[Outcome]:
    """Run every case of a file in either format (the jDip one is recognised by CASE)."""
    cases = parse_jdip(text) if re.search(r"^CASE ", text, re.MULTILINE) else parse_cases(text)
    for case in cases:
        yield run_case(case, rules)


def transcribe(
    cases: list[Case], rules: Rules | None = None, game_map: Map | None = None
) -> list[Case]:
    """Cases in the project's own form: explicit retreat options, and each order the
    engine refuses marked with its rejection code (to be reviewed against the DATC text)."""
    game_map = game_map or standard_map()
    out: list[Case] = []
    for case in cases:
        position = starting_position(case, game_map)
        dislodged: list[tuple[UnitSpec, tuple[str, ...] | None]] = [
            (spec, position.dislodged[game_map.province_of(spec[2])].retreats)
            for spec, _r in case.dislodged
        ]
        verdict = run_case(case, rules, game_map)
        codes: dict[str, str] = {}
        for text, code in verdict.rejected:
            codes.setdefault(text, code)
        orders = [(p, t, codes.get(t)) for p, t, _c in case.orders]
        out.append(
            Case(
                case.name,
                case.phase,
                list(case.units),
                case.centres,
                dislodged,
                [],
                orders,
                case.after,
                list(case.after_dislodged),
                case.title if case.title != case.name else "",
                True,
            )
        )
    return out
