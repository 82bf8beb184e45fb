"""The fast readers of orders against the general parser.

:func:`~judge.engine.notation.parse_fast` (the canonical short form, then the common plain
spellings) must give exactly the general parser's order for every line it takes, and
take no line the general parser refuses; anything else it leaves to the general parser
(``None``).  The corpus: the random games' orders in every spelling the benchmark writes,
the DATC cases' orders, and variants of both made by hand and by hypothesis.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.bench_adjudicate import to_diplomacy
from benchmarks.random_games import play_game
from judge.datc import parse_cases
from judge.engine.adjudicator import adjudicate
from judge.engine.board import Map, standard_map
from judge.engine.errors import OrderError
from judge.engine.notation import _parse_general, format_order, parse_fast, parse_words
from judge.engine.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from judge.engine.phases import PhaseKind
from judge.engine.units import ARMY, FLEET

MAP: Map = standard_map()
KINDS: tuple[PhaseKind | None, ...] = (
    None,
    PhaseKind.MOVEMENT,
    PhaseKind.RETREAT,
    PhaseKind.ADJUSTMENT,
)
DATC = Path(__file__).resolve().parents[1] / "datc"


def _general(text: str, kind: PhaseKind | None) -> Order | OrderError:
    try:
        power, order = _parse_general(text, MAP, kind)
    except OrderError as err:
        return err
    return order if power is None else OrderError(f"power {power}")


def assert_agrees(text: str, kind: PhaseKind | None) -> Order | None:
    """The fast path's answer for ``text``, checked against the general parser's."""
    fast = parse_fast(text, MAP, kind)
    if fast is not None:
        general = _general(text, kind)
        assert not isinstance(general, OrderError), (text, kind, fast, general)
        assert type(fast) is type(general) and fast == general, (text, kind, fast, general)
    return fast


@functools.cache
def game_lines() -> tuple[tuple[str, PhaseKind, str], ...]:
    """(text, phase kind, spelling) for every order of three seeded random games, in the
    short judge form, the long form, the package's spelling and the package's with '-'
    for retreats."""
    lines: list[tuple[str, PhaseKind, str]] = []
    for seed in (1, 2, 3):
        for record in play_game(seed, last_year=1912):
            kind = record.position.phase.kind
            for orders in record.orders.values():
                for order in orders:
                    lines.append((format_order(order, MAP, short=True), kind, "short"))
                    lines.append((format_order(order, MAP), kind, "long"))
                    lines.append((to_diplomacy(order, record.position), kind, "package"))
                    lines.append((to_diplomacy(order, retreat="-"), kind, "package-"))
    return tuple(lines)


@functools.cache
def datc_lines() -> tuple[tuple[str, PhaseKind], ...]:
    lines: list[tuple[str, PhaseKind]] = []
    for name in ("datc_2023.txt", "datc_2000.txt"):
        for case in parse_cases((DATC / name).read_text(encoding="utf-8"), MAP):
            lines.extend((text, case.phase.kind) for _power, text, _code in case.orders)
    return tuple(lines)


def test_every_game_line_agrees_and_the_common_spellings_are_all_fast() -> None:
    taken: dict[str, int] = {}
    for text, kind, spelling in game_lines():
        if assert_agrees(text, kind) is not None:
            taken[spelling] = taken.get(spelling, 0) + 1
    total = {s: sum(1 for _t, _k, sp in game_lines() if sp == s) for s in taken}
    # The short form, and the package's spelling with '-' for retreats, never need the
    # general parser; the package's 'R' (a removal in the judges' syntax) always does.
    assert taken["short"] == total["short"]
    assert taken["package-"] == total["package-"]
    retreats = sum(1 for t, k, s in game_lines() if s == "package" and " R " in t)
    assert taken["package"] == total["package"] - retreats


@pytest.mark.parametrize("kind", KINDS)
def test_every_datc_line_agrees_in_every_kind_of_phase(kind: PhaseKind | None) -> None:
    for text, _kind in datc_lines():
        assert_agrees(text, kind)
        assert_agrees(text.upper(), kind)


@pytest.mark.parametrize(
    ("text", "kind", "order"),
    [
        ("A PAR - BUR", None, Move(ARMY, "par", "bur")),
        ("A PAR-BUR", PhaseKind.RETREAT, Retreat(ARMY, "par", "bur")),
        ("F NTH C A LON - NWY", None, Convoy(FLEET, "nth", ARMY, "lon", "nwy")),
        ("F NTH C A LON - NWY VIA CONVOY", None, Convoy(FLEET, "nth", ARMY, "lon", "nwy")),
        ("A PAR S A MAR - BUR", None, SupportMove(ARMY, "par", ARMY, "mar", "bur")),
        ("A PAR S A MAR", None, SupportHold(ARMY, "par", ARMY, "mar")),
        ("A PAR S A MAR H", None, SupportHold(ARMY, "par", ARMY, "mar")),
        ("A LON - NWY VIA", None, Move(ARMY, "lon", "nwy", via_convoy=True)),
        ("A lon -> nwy by convoy", None, Move(ARMY, "lon", "nwy", via_convoy=True)),
        ("A PAR D", PhaseKind.RETREAT, Disband(ARMY, "par")),
        ("A PAR D", PhaseKind.ADJUSTMENT, Remove(ARMY, "par")),
        ("A PAR B", PhaseKind.ADJUSTMENT, Build(ARMY, "par")),
        ("A PAR", PhaseKind.ADJUSTMENT, Build(ARMY, "par", implied=True)),
        ("Remove F Tri", PhaseKind.RETREAT, Disband(FLEET, "tri")),
        ("WAIVE", PhaseKind.ADJUSTMENT, Waive()),
        ("Army Paris moves to Burgundy", None, Move(ARMY, "par", "bur")),
        ("Army Paris -> Burgundy", None, Move(ARMY, "par", "bur")),
        ("Army Paris HOLD", None, Hold(ARMY, "par")),
        ("Fleet North Sea CONVOY Army Lon -> Nwy", None, Convoy(FLEET, "nth", ARMY, "lon", "nwy")),
        ("F STP/NC - BAR", None, Move(FLEET, "stp/nc", "bar")),
        ("Fleet St Petersburg/sc -> Gulf of Bothnia", None, Move(FLEET, "stp/sc", "bot")),
        ("F spa sc - wes", None, Move(FLEET, "spa/sc", "wes")),
        ("A Tyr retreats to Boh", PhaseKind.MOVEMENT, Retreat(ARMY, "tyr", "boh")),
        ("F LYO - MAR", None, Move(FLEET, "gol", "mar")),
        ("F mid - bre", None, Move(FLEET, "mao", "bre")),
    ],
)  # fmt: skip
def test_the_common_spellings_take_the_fast_path(
    text: str, kind: PhaseKind | None, order: Order
) -> None:
    assert parse_words(text, MAP, kind) == order
    assert assert_agrees(text, kind) == order


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("A PAR R BUR", PhaseKind.RETREAT),  # 'r' is remove: the general parser refuses it
        ("A PAR - BUR VIA", PhaseKind.RETREAT),  # a convoyed retreat: refused (NVR)
        ("A PAR", PhaseKind.MOVEMENT),  # a unit alone: refused (UNIT_ONLY)
        ("A PAR - BRU", None),  # no such province: the general parser says so
        ("A PAR - BUR H", None),
        ("F BUL/WC - BLA", None),  # Bulgaria has no west coast
        ("F Mid-Atlantic Ocean - Bre", None),  # a hyphen inside a name: general parser
        ("A LON - NTH - NWY", None),  # a route
        ("A PAR P GE", None),  # proxy
        ("A ARMY PAR - BUR", None),  # an article
        ("England: A LVP - YOR", None),  # a power
        ("ENG WVE", PhaseKind.ADJUSTMENT),  # DAIDE
        ("A PAR--BUR", None),
        ("A PAR -->BUR", None),
        ("A PAR - BUR.", None),
        ("A Parus - Bur", None),  # a misspelling the general parser may correct
        ("A in Par - Bur", None),
        ("A " + "PAR " * 200 + "- BUR", None),  # long: never looked at
    ],
)
def test_what_the_fast_path_leaves_to_the_general_parser(text: str, kind: PhaseKind | None) -> None:
    assert parse_words(text, MAP, kind) is None
    assert_agrees(text, kind)


# -- fuzzed variants -------------------------------------------------------------------

WORDS = [
    "A", "F", "a", "army", "Fleet", "H", "hold", "-", "->", ">", "m", "moves", "to", "S",
    "supports", "C", "convoys", "P", "via", "by", "convoy", "D", "disband", "b", "build",
    "r", "remove", "w", "waive", "retreat", "the", "an", "in", "at", "/", "nc", "sc", "ec",
    "north", "coast", "St", "Petersburg", "Mid", "Atlantic", "Ocean", "Gulf", "of", "Lyon",
    "North", "Sea", "xyz", "Par", "Bur", "stp", "spa", "bul", "lyo", "gol", "mid", "English",
    "Channel", "wve", "Paris", "Burgundy", "  ",
]  # fmt: skip


def _variants(text: str, draw: st.DrawFn) -> str:
    """A random rewrite of ``text``: case, spacing, move words, insertions, deletions."""
    words = text.replace("-", " - ").split()
    for _ in range(draw(st.integers(0, 3))):
        action = draw(st.sampled_from(["insert", "delete", "swap", "case", "join", "move"]))
        if action == "insert":
            words.insert(draw(st.integers(0, len(words))), draw(st.sampled_from(WORDS)))
        elif words and action == "delete":
            del words[draw(st.integers(0, len(words) - 1))]
        elif len(words) > 1 and action == "swap":
            k = draw(st.integers(0, len(words) - 2))
            words[k], words[k + 1] = words[k + 1], words[k]
        elif words and action == "case":
            k = draw(st.integers(0, len(words) - 1))
            words[k] = draw(st.sampled_from([words[k].upper(), words[k].lower(), words[k].title()]))
        elif words and action == "move":
            k = draw(st.integers(0, len(words) - 1))
            if words[k] == "-":
                words[k] = draw(st.sampled_from(["->", "moves to", "to", "- to", "m", ">"]))
    joiner = draw(st.sampled_from([" ", "", "  "]))
    out = joiner.join(words)
    return out.replace(" - ", "-") if draw(st.booleans()) else out


@st.composite
def fuzzed(draw: st.DrawFn) -> tuple[str, PhaseKind | None]:
    kind: PhaseKind | None
    if draw(st.booleans()):
        text, kind, _spelling = draw(st.sampled_from(game_lines()))
    else:
        text, kind = draw(st.sampled_from(datc_lines()))
    if draw(st.booleans()):
        kind = draw(st.sampled_from(KINDS))
    return _variants(text, draw), kind


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fuzzed())
def test_fuzzed_lines_agree(case: tuple[str, PhaseKind | None]) -> None:
    text, kind = case
    assert_agrees(text, kind)


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join), st.sampled_from(KINDS))
def test_word_salad_agrees(text: str, kind: PhaseKind | None) -> None:
    assert_agrees(text, kind)


def test_the_adjudicator_gives_the_same_outcome_for_every_spelling() -> None:
    for record in play_game(4, last_year=1904):
        position = record.position
        values = adjudicate(position, {p: list(o) for p, o in record.orders.items()})
        texts = {
            p: [to_diplomacy(o, retreat="-") for o in orders] for p, orders in record.orders.items()
        }
        out = adjudicate(position, texts)
        assert out.results == values.results
        assert out.position.units == values.position.units
        assert not out.rejected
