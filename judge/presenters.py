"""Engine values as the text players read: results, order echoes, positions, deadlines.

Pure functions only: no I/O and no clock, so every email body can be tested as a string.
The layouts follow the njudge results and confirmations that players and their tools
(mappers, history importers) already parse -- a single space after ``Power:``, notes in
``(*...*)``, the ownership table with its fixed columns; see
``shared/notes/judge-conventions.md``.  The wording beyond those layouts is ours.

>>> from judge.engine import Position, adjudicate, standard_map
>>> out = adjudicate(Position.initial(standard_map()), {"France": ["A Par-Bur"]})
>>> print(results_report("demo", 1, out).splitlines()[0])
Movement results for Spring of 1901.  (demo.001)
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from judge.engine import (
    Adjudication,
    Build,
    Dislodged,
    Map,
    Order,
    OrderResult,
    Phase,
    PhaseKind,
    Position,
    Proxy,
    Remove,
    Season,
    Unit,
    UnitType,
    Waive,
)
from judge.engine.notation import format_order
from judge.engine.obligations import Owed

__all__ = [
    "CentreYear",
    "Ending",
    "EndingKind",
    "OrderStanding",
    "adjustment_status",
    "and_list",
    "centre_history",
    "centre_history_report",
    "centre_report",
    "format_deadline",
    "missing_lines",
    "next_phase_text",
    "order_lines",
    "order_standing",
    "phase_heading",
    "position_report",
    "results_report",
    "units_report",
]

#: Width the ownership lines are wrapped to; mail readers still assume 80 columns.
WRAP_WIDTH = 78
#: Column where the ownership table's text starts (``Austria:   Budapest, ...``).
_LABEL_WIDTH = 11
#: Column width of the power label in the centre-count lines, where the count follows.
_COUNT_LABEL_WIDTH = 10

# English names fixed here rather than taken from strftime, whose %a and %b follow the
# process locale: a judge running under a French locale must still print "Sat Nov".
_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


# -- headings ---------------------------------------------------------------------------


def _heading(kind_word: str, what: str, phase: Phase, game: str, seq: int) -> str:
    return f"{kind_word} {what} for {phase.season.word} of {phase.year}.  ({game}.{seq:03d})"


def phase_heading(kind_word: str, phase: Phase, game: str, seq: int) -> str:
    """The heading over a confirmation's order list.

    >>> phase_heading("Movement", Phase.parse("S1901M"), "winter01", 1)
    'Movement orders for Spring of 1901.  (winter01.001)'
    """
    return _heading(kind_word, "orders", phase, game, seq)


# -- small pieces of wording ------------------------------------------------------------


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{count} {word if count == 1 else (plural or word + 's')}"


def _place(game_map: Map, location: str) -> str:
    """A location as it reads after "in": seas take the article (the English Channel)."""
    name = game_map.location_name(location)
    return f"the {name}" if game_map.is_sea(game_map.province_of(location)) else name


def _unit_word(unit_type: UnitType | None) -> str:
    return unit_type.word if unit_type is not None else "Unit"


def _unit_long(unit: Unit, game_map: Map) -> str:
    return f"{unit.type.word} {game_map.location_name(unit.location)}"


def _label(power: str, width: int) -> str:
    """``Austria:`` padded to ``width`` columns, with at least one space after it."""
    text = f"{power}:"
    return text.ljust(max(width, len(text) + 1))


def _or_list(names: Sequence[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} or {names[-1]}"


def _power_rank(game_map: Map, power: str) -> tuple[int, str]:
    # The map's own power order first; a name it does not know sorts after, by name.
    try:
        return (game_map.powers.index(power), power)
    except ValueError:
        return (len(game_map.powers), power)


def _order_key(game_map: Map, power: str, order: Order) -> tuple[tuple[int, str], int, str]:
    """Power, then province name; waives (no province) last within their power."""
    if not order.location:
        return (_power_rank(game_map, power), 1, "")
    name = game_map.province_name.get(game_map.province_of(order.location), order.location)
    return (_power_rank(game_map, power), 0, name.lower())


# -- results ------------------------------------------------------------------------------


def _notes(result: OrderResult) -> str:
    seen: list[str] = []
    for note in result.notes:
        if note.value not in seen:  # "bounce" twice would add nothing
            seen.append(note.value)
    return f"  (*{', '.join(seen)}*)" if seen else ""


def _adjustment_text(result: OrderResult, game_map: Map) -> str:
    order = result.order
    if type(order) is Waive:
        return "Build waived."
    if type(order) is Build:
        what = {UnitType.ARMY: "an army", UnitType.FLEET: "a fleet", None: "a unit"}
        return f"Builds {what[order.unit_type]} in {_place(game_map, order.location)}."
    if type(order) is Remove:
        word = _unit_word(order.unit_type).lower()
        why = " (civil disorder)" if result.default else ""
        return f"Removes the {word} in {_place(game_map, order.location)}{why}."
    return f"{format_order(order, game_map)}."  # not an adjustment order: print it plainly


def _result_line(result: OrderResult, kind: PhaseKind, game_map: Map) -> str:
    power = result.power
    if kind is PhaseKind.ADJUSTMENT:
        # njudge aligns adjustment lines at column 11 whatever the power's name length.
        return f"{_label(power, _LABEL_WIDTH)}{_adjustment_text(result, game_map)}"
    order = result.order
    unit = f"{_unit_word(order.unit_type)} {game_map.location_name(order.location)}"
    if result.default and kind is PhaseKind.MOVEMENT:
        return f"{power}: {unit}, No Order Processed.{_notes(result)}"
    if result.default:  # a retreat nobody ordered: the unit is disbanded
        return f"{power}: {unit} DISBAND.  (*no order*)"
    return f"{power}: {format_order(order, game_map)}.{_notes(result)}"


def _dislodged_lines(adj: Adjudication) -> list[str]:
    game_map = adj.before.map
    entries: list[tuple[tuple[tuple[int, str], str], str]] = []

    def key(unit: Unit) -> tuple[tuple[int, str], str]:
        return (_power_rank(game_map, unit.power), game_map.province_name[unit.province])

    def who(unit: Unit) -> str:
        adjective = game_map.power_adjective.get(unit.power, unit.power)
        return f"The {adjective} {unit.type.word} in {_place(game_map, unit.location)}"

    if adj.position.phase.kind is PhaseKind.RETREAT:
        for entry in adj.position.dislodged.values():
            options = sorted(game_map.location_name(loc) for loc in entry.retreats)
            entries.append(
                (key(entry.unit), f"{who(entry.unit)} can retreat to {_or_list(options)}.")
            )
    for unit in adj.destroyed:
        entries.append((key(unit), f"{who(unit)} with no valid retreats was destroyed."))
    return [line for _key, line in sorted(entries)]


def _ends_fall(adj: Adjudication) -> bool:
    """Whether this phase closed a Fall turn, so centres have just changed hands."""
    before, after = adj.before.phase, adj.position.phase
    return (
        before.season is Season.FALL
        and before.kind is not PhaseKind.ADJUSTMENT
        and after.season is not Season.FALL
    )


def _wrapped(label: str, items: Iterable[str]) -> list[str]:
    """``label`` then the items joined by commas, wrapped with continuation lines aligned."""
    # Non-breaking stand-ins keep "St Petersburg" whole across a wrap.
    text = ", ".join(item.replace(" ", "\0") for item in items) + "."
    head = label.ljust(max(_LABEL_WIDTH, len(label) + 1))
    lines = textwrap.wrap(
        text,
        width=WRAP_WIDTH,
        initial_indent=head,
        subsequent_indent=" " * len(head),
        break_long_words=False,
        break_on_hyphens=False,
    )
    return [line.replace("\0", " ") for line in lines]


def _ownership_lines(position: Position) -> list[str]:
    game_map = position.map
    lines = ["Ownership of supply centers:", ""]
    for power in sorted(set(position.centres.values()), key=lambda p: _power_rank(game_map, p)):
        names = sorted(game_map.province_name[c] for c in position.centres_of(power))
        lines.extend(_wrapped(f"{power}:", names))
    unowned = sorted(
        game_map.province_name[c] for c in game_map.supply_centres if c not in position.centres
    )
    if unowned:
        lines.extend(_wrapped("Unowned:", unowned))
    return lines


def _count_lines(position: Position) -> list[str]:
    """``Austria:   3 Supply centers,  3 Units:  Builds   0 units.`` per living power."""
    lines = []
    for power in position.powers_alive():
        centres = len(position.centres_of(power))
        units = len(position.units_of(power))
        owed = centres - units
        verb = "Removes" if owed < 0 else "Builds"
        count = abs(owed)
        label = _label(power, _COUNT_LABEL_WIDTH)
        lines.append(
            f"{label}{centres:>2} Supply centers, {units:>2} Units:  "
            f"{verb} {count:>3} unit{'' if count == 1 else 's'}."
        )
    return lines


def results_report(game: str, seq: int, adj: Adjudication) -> str:
    """The results block of one processed phase, in the njudge layout (no final newline).

    One line per order result, sorted by power then province name; after a movement
    phase the dislodged units; after the phase that ends a Fall turn the centre
    ownership and each power's builds or removals; and a victory line when a power won.
    ``seq`` is the game's phase sequence number, printed zero-padded to three digits.
    """
    before = adj.before
    game_map = before.map
    kind = before.phase.kind
    lines = [_heading(kind.word, "results", before.phase, game, seq), ""]
    ordered = sorted(adj.results, key=lambda r: _order_key(game_map, r.power, r.order))
    lines.extend(_result_line(r, kind, game_map) for r in ordered)
    if kind is PhaseKind.MOVEMENT:
        dislodged = _dislodged_lines(adj)
        if dislodged:
            lines.extend(["", "The following units were dislodged:", *dislodged])
    if _ends_fall(adj):
        lines.extend(["", *_ownership_lines(adj.position), "", *_count_lines(adj.position)])
    if adj.winner:
        won = len(adj.position.centres_of(adj.winner))
        lines.extend(["", f"{adj.winner} has won the game with {_plural(won, 'supply center')}."])
    return "\n".join(lines)


# -- confirmations --------------------------------------------------------------------------


def order_lines(
    power: str,
    orders: Sequence[Order],
    game_map: Map,
    owners: Mapping[str, str] | None = None,
) -> list[str]:
    """The echo of a power's current orders, ``France: Army Paris -> Burgundy.`` each.

    Sorted by province name like the results, so the echo and the results read alike.
    ``owners`` maps the province of each unit of another power that ``power`` ordered
    (proxies allowed, seed 002) to its owner: such an order says what it depends on.

    >>> from judge.engine import ARMY, Move, standard_map
    >>> order_lines("France", [Move(ARMY, "par", "bur")], standard_map())
    ['France: Army Paris -> Burgundy.']
    >>> order_lines("Germany", [Move(ARMY, "par", "bur")], standard_map(), {"par": "France"})
    ['Germany: Army Paris -> Burgundy (a French unit: this order counts only if France
      hands the unit to you).']
    """
    ordered = sorted(orders, key=lambda o: _order_key(game_map, power, o))
    return [
        f"{power}: {format_order(order, game_map)}{_foreign(order, owners, game_map)}."
        for order in ordered
    ]


def _foreign(order: Order, owners: Mapping[str, str] | None, game_map: Map) -> str:
    """What an order for another power's unit depends on, or "" for the power's own."""
    owner = owners.get(order.province) if owners else None
    if owner is None:
        return ""
    adjective = game_map.power_adjective.get(owner, owner)
    article = "an" if adjective[:1].upper() in "AEIOU" else "a"
    if type(order) is Proxy:
        # Only the owner's proxy order hands a unit over (seed 002).
        why = f"only {owner} can hand it over, so this order does nothing"
    else:
        why = f"this order counts only if {owner} hands the unit to you"
    return f" ({article} {adjective} unit: {why})"


def echo_lines(
    power: str,
    orders: Sequence[Order],
    implied: Sequence[Order],
    game_map: Map,
    owners: Mapping[str, str] | None = None,
) -> list[str]:
    """:func:`order_lines` of a power's orders and of the moves they imply (house rule
    3.8), sorted together; an implied move is marked so.  ``owners`` as for
    :func:`order_lines`.

    >>> from judge.engine import ARMY, Move, SupportMove, standard_map
    >>> echo_lines("Germany", [SupportMove(ARMY, "mun", ARMY, "ber", "sil")],
    ...            [Move(ARMY, "ber", "sil")], standard_map())  # doctest: +NORMALIZE_WHITESPACE
    ['Germany: Army Berlin -> Silesia (implied by a support or convoy).',
     'Germany: Army Munich SUPPORT Army Berlin -> Silesia.']
    """
    marked = set(order_lines(power, implied, game_map, owners))
    return [
        f"{line[:-1]} (implied by a support or convoy)." if line in marked else line
        for line in order_lines(power, [*orders, *implied], game_map, owners)
    ]


def missing_lines(power: str, units: Sequence[Unit], game_map: Map, kind: PhaseKind) -> list[str]:
    """One line per unit of ``power`` that still has no valid order.

    Movement: ``France: Army Marseilles, No Order Processed.`` (the njudge wording, which
    players know means "this unit will hold"); retreat: the unit will be disbanded.
    Adjustments are counted, not listed per unit: use :func:`adjustment_status`.

    >>> from judge.engine import ARMY, standard_map
    >>> missing_lines("France", [Unit("France", ARMY, "mar")], standard_map(), PhaseKind.MOVEMENT)
    ['France: Army Marseilles, No Order Processed.']
    """
    if kind is PhaseKind.ADJUSTMENT:
        raise ValueError(
            "missing_lines lists units, which adjustment phases do not order: "
            "use adjustment_status(power, owed, ordered)"
        )
    ordered = sorted(units, key=lambda u: _order_key(game_map, power, Order(u.type, u.location)))
    if kind is PhaseKind.MOVEMENT:
        return [f"{power}: {_unit_long(u, game_map)}, No Order Processed." for u in ordered]
    return [
        f"{power}: {_unit_long(u, game_map)}, no retreat ordered (it will be disbanded)."
        for u in ordered
    ]


def adjustment_status(power: str, owed: int, ordered: int, places: int | None = None) -> str:
    """Where ``power`` stands with its builds (``owed`` > 0) or removals (``owed`` < 0).

    ``owed`` is what the power may build (or must remove); ``ordered`` how many build,
    waive or remove orders it has given; ``places`` (when known) how many centres it has
    free to build in, when it owes more builds than that.

    >>> adjustment_status("England", 2, 1)
    'England: 1 of 2 builds ordered; 1 more may be ordered (builds not ordered are waived).'
    >>> adjustment_status("Austria", -1, 0)
    'Austria: 0 of 1 removal ordered; 1 more must be ordered, or the judge will choose it.'
    >>> adjustment_status("Italy", 1, 0, places=0)
    'Italy: 0 of 1 build ordered; no centre is free to build in, so the build is waived.'
    """
    if owed == 0:
        return f"{power}: no builds or removals this winter."
    word = "build" if owed > 0 else "removal"
    needed = abs(owed)
    left = needed - ordered
    if left <= 0:
        return f"{power}: all {_plural(needed, word)} ordered."
    if owed > 0 and places is not None and ordered >= places:
        # Nowhere left to build: the rest is waived, and the power owes nothing more.
        free = "no centre is" if ordered == 0 else "no other centre is"
        rest = "the build is" if left == 1 else f"the {left} builds are"
        return (
            f"{power}: {ordered} of {_plural(needed, word)} ordered; {free} free to build in, "
            f"so {rest} waived."
        )
    if owed > 0 and places is not None and places < needed:
        return (
            f"{power}: {ordered} of {_plural(needed, word)} ordered; {places - ordered} more "
            f"may be ordered (there is room for {_plural(places, word)}; builds not ordered "
            "are waived)."
        )
    done = f"{power}: {ordered} of {_plural(needed, word)} ordered; {left} more"
    if owed > 0:
        return f"{done} may be ordered (builds not ordered are waived)."
    chosen = "it" if left == 1 else "them"
    return f"{done} must be ordered, or the judge will choose {chosen}."


# -- positions ------------------------------------------------------------------------------


@dataclass(frozen=True)
class OrderStanding:
    """Where one power stands with its orders of a phase, as every mail shows it."""

    #: Its orders (and the moves they imply), a line each, as the confirmation echoes them.
    order_lines: tuple[str, ...]
    #: What it still has to order: unordered units a line each, or (adjustments) where it
    #: stands with its builds or removals.
    missing_lines: tuple[str, ...]
    #: Whether it has ordered all it owes (:func:`judge.engine.obligations.owed`).
    complete: bool


def order_standing(position: Position, due: Owed, given: Sequence[Order]) -> OrderStanding:
    """``due.power``'s standing in ``position``'s phase, having given ``given`` (``due``
    is :func:`judge.engine.obligations.owed` of them): the confirmation, the reminders and
    late notices, the rollback's news and the game master's LIST all show this."""
    power, board, kind = due.power, position.map, position.phase.kind
    # Orders for other powers' units (proxies allowed) say what they depend on.
    owners = {
        o.province: unit.power
        for o in given
        if kind is PhaseKind.MOVEMENT
        and (unit := position.units.get(o.province)) is not None
        and unit.power != power
    }
    lines = tuple(echo_lines(power, given, due.implied, board, owners))
    if kind is PhaseKind.ADJUSTMENT:
        missing: tuple[str, ...] = (
            adjustment_status(power, due.adjustment, due.ordered, due.places),
        )
    else:
        missing = tuple(missing_lines(power, list(due.units), board, kind))
    return OrderStanding(lines, missing, due.complete)


def _dislodged_entry(entry: Dislodged, game_map: Map) -> str:
    unit = entry.unit
    options = sorted(game_map.location_name(loc) for loc in entry.retreats)
    where = _or_list(options)
    return f"{unit.power}: {_unit_long(unit, game_map)}, dislodged, can retreat to {where}."


def position_report(position: Position) -> str:
    """Units by power and centre ownership: the game-start and SUMMARY picture (no final newline).

    Units print as ``Austria: Army Budapest``, powers in the map's order and each power's
    units by province name; in a retreat phase the dislodged units follow.
    """
    return "\n".join([units_report(position), "", *_ownership_lines(position)])


def units_report(position: Position) -> str:
    """The units of :func:`position_report` without the ownership (no final newline):
    ``Units:``, a line per unit, and the dislodged units of a retreat phase."""
    game_map = position.map
    units = sorted(
        position.units.values(),
        key=lambda u: (_power_rank(game_map, u.power), game_map.province_name[u.province]),
    )
    lines = ["Units:", ""]
    lines.extend(f"{u.power}: {_unit_long(u, game_map)}" for u in units)
    if not units:
        lines.append("(none)")
    if position.dislodged:
        lines.extend(["", "Dislodged units:", ""])
        entries = sorted(
            position.dislodged.values(),
            key=lambda d: (
                _power_rank(game_map, d.unit.power),
                game_map.province_name[d.unit.province],
            ),
        )
        lines.extend(_dislodged_entry(d, game_map) for d in entries)
    return "\n".join(lines)


def and_list(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c`` (empty: ``""``): powers or phases in a sentence.

    >>> and_list(["France"]), and_list(["S1901M", "F1901M", "F1901R"])
    ('France', 'S1901M, F1901M and F1901R')
    """
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def next_phase_text(phase: Phase) -> str:
    """The phase that comes next, as the results mail names it.

    >>> next_phase_text(Phase.parse("F1903R"))
    'Retreats for Fall of 1903'
    """
    kind = {"M": "Movement", "R": "Retreats", "A": "Adjustments"}[phase.kind.value]
    return f"{kind} for {phase.season.word} of {phase.year}"


def centre_report(position: Position) -> str:
    """Who owns which supply centre, then ``Austria:   3 Supply centers,  3 Units.`` for
    each power still alive: a game's standing when it ends without a winner (no final
    newline)."""
    lines = [*_ownership_lines(position), ""]
    for power in position.powers_alive():
        centres = len(position.centres_of(power))
        units = len(position.units_of(power))
        label = _label(power, _COUNT_LABEL_WIDTH)
        lines.append(f"{label}{centres:>2} Supply centers, {units:>2} Units.")
    return "\n".join(lines)


# -- the end of a game ----------------------------------------------------------------------

#: How a game can end: a win on the board, the game master's TERMINATE, a draw, a
#: concession, or a ranked result agreed by proposal (house rule 8.6).
EndingKind = Literal["solo", "terminated", "draw", "concession", "result"]


@dataclass(frozen=True)
class Ending:
    """How a game ended, as its final mail says it in words.

    ``places`` ranks the powers the result names: ``((1, ("France",)),)`` for a solo or a
    concession to France, one place shared by every power of a draw, the places of an
    agreed result in order (powers of equal rank share one), and none for a game the
    master ended.  ``phase_code`` and ``phase_text`` name the phase the game ended in or
    after: the last one processed (a solo) or the one being played (the others).
    """

    kind: EndingKind
    phase_code: str
    phase_text: str
    places: tuple[tuple[int, tuple[str, ...]], ...] = ()

    @property
    def winner(self) -> str | None:
        """The one power a solo or a concession names first, else ``None``."""
        if self.kind in ("solo", "concession") and self.places:
            return self.places[0][1][0]
        return None

    @property
    def powers(self) -> tuple[str, ...]:
        """Every power the result names, best placed first."""
        return tuple(power for _rank, powers in self.places for power in powers)


@dataclass(frozen=True)
class CentreYear:
    """One row of :func:`centre_history`: each power's supply-centre count as a game
    year ended (``year`` ``None``: at the start of the game)."""

    year: int | None
    counts: tuple[int, ...]


def centre_history(positions: Iterable[Position]) -> list[CentreYear]:
    """Each power's supply-centre count year by year, from a game's positions in order
    of play (one per phase record, the start of each phase).

    Centres change hands only as a Fall turn ends, so the count of a year is that of the
    position at the start of the following Winter (adjustments) or, when no adjustment
    phase was played, of the next Spring's movement; the first Spring gives the start of
    the game.  Counts follow the map's order of powers.

    >>> from judge.engine import standard_map
    >>> [(row.year, row.counts) for row in centre_history([Position.initial(standard_map())])]
    [(None, (3, 3, 3, 3, 3, 4, 3))]
    """
    rows: dict[int | None, CentreYear] = {}
    first: int | None = None
    for position in positions:
        phase = position.phase
        if phase.kind is PhaseKind.ADJUSTMENT:
            year = phase.year
        elif phase.season is Season.SPRING and phase.kind is PhaseKind.MOVEMENT:
            year = phase.year - 1
        else:
            continue
        if first is None:
            first = year
        key = None if year == first and phase.season is Season.SPRING else year
        counts = tuple(len(position.centres_of(power)) for power in position.map.powers)
        # A Winter and the Spring after it see the same centres; the later one stands.
        rows[key] = CentreYear(key, counts)
    return sorted(rows.values(), key=lambda row: -1 if row.year is None else row.year)


def centre_history_report(powers: Sequence[str], rows: Sequence[CentreYear]) -> str:
    """The rows of :func:`centre_history` as a table, a column per power and a line per
    year (no final newline); ``Start`` is the game's start.

    >>> from judge.engine import standard_map
    >>> game_map = standard_map()
    >>> print(centre_history_report(game_map.powers, [CentreYear(1901, (4, 4, 5, 5, 4, 6, 4))]))
    Year  Austria England  France Germany   Italy  Russia  Turkey
    1901        4       4       5       5       4       6       4
    """
    # Each column as wide as the longest power's name, so that the counts line up under
    # the names; the first column holds "Start" or a year.
    width = max([len(power) for power in powers] + [2])
    lines = ["Year " + "".join(f" {power:>{width}}" for power in powers)]
    for row in rows:
        label = "Start" if row.year is None else str(row.year)
        lines.append(f"{label:<5}" + "".join(f" {count:>{width}}" for count in row.counts))
    return "\n".join(line.rstrip() for line in lines)


# -- deadlines ------------------------------------------------------------------------------


def format_deadline(when_utc: datetime, zone: str) -> str:
    """An absolute date in ``zone`` with its offset and name, never "in 3 hours" alone.

    Raises ``ValueError`` for a naive datetime (whose zone nobody knows) or an unknown zone.

    >>> from datetime import UTC
    >>> format_deadline(datetime(2026, 11, 28, 20, 0, tzinfo=UTC), "Europe/London")
    'Sat Nov 28 2026 20:00:00 +0000 (Europe/London)'
    >>> format_deadline(datetime(2026, 7, 4, 20, 0, tzinfo=UTC), "Europe/Paris")
    'Sat Jul 04 2026 22:00:00 +0200 (Europe/Paris)'
    """
    if when_utc.tzinfo is None or when_utc.utcoffset() is None:
        raise ValueError(
            f"deadline {when_utc.isoformat()} has no time zone: pass an aware datetime in UTC"
        )
    try:
        tz = ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(
            f"unknown time zone {zone!r}: use an IANA name such as Europe/London"
        ) from None
    local = when_utc.astimezone(tz)
    return (
        f"{_WEEKDAYS[local.weekday()]} {_MONTHS[local.month - 1]} {local.day:02d} {local.year} "
        f"{local:%H:%M:%S %z} ({zone})"
    )
