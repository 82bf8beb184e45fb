"""Tests for the standard map data and the map loader (judge/engine/board.py)."""

from __future__ import annotations

import sys
import time
from collections import deque

import pytest

from judge.engine.board import (
    RESERVED_WORDS,
    Map,
    ProvinceKind,
    normalise_name,
    standard_map,
)
from judge.engine.units import ARMY, FLEET, Unit

ALL_PROVINCES = [
    "adr", "aeg", "alb", "ank", "apu", "arm", "bal", "bar", "bel", "ber", "bla", "boh", "bot",
    "bre", "bud", "bul", "bur", "cly", "con", "den", "eas", "edi", "eng", "fin", "gal", "gas",
    "gre", "hel", "hol", "ion", "iri", "kie", "lon", "lvn", "lvp", "gol", "mao", "mar", "mos",
    "mun", "naf", "nao", "nap", "nth", "nwg", "nwy", "par", "pic", "pie", "por", "pru", "rom",
    "ruh", "rum", "ser", "sev", "sil", "ska", "smy", "spa", "stp", "swe", "syr", "tri", "tun",
    "tus", "tyr", "tys", "ukr", "ven", "vie", "wal", "war", "wes", "yor",
]  # fmt: skip

SPLIT_COASTS = {
    "spa": ("spa/nc", "spa/sc"),
    "stp": ("stp/nc", "stp/sc"),
    "bul": ("bul/ec", "bul/sc"),
}


@pytest.fixture(scope="module")
def m() -> Map:
    """The standard map."""
    return standard_map()


# -- basic content ------------------------------------------------------------------------


def test_name_and_powers(m: Map) -> None:
    assert m.name == "Standard"
    assert m.powers == ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")
    assert m.power_adjective == {
        "Austria": "Austrian",
        "England": "English",
        "France": "French",
        "Germany": "German",
        "Italy": "Italian",
        "Russia": "Russian",
        "Turkey": "Turkish",
    }
    assert "".join(m.power_letter[p] for p in m.powers) == "AEFGIRT"
    assert [m.power_daide[p] for p in m.powers] == ["AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR"]


def test_provinces(m: Map) -> None:
    assert len(ALL_PROVINCES) == 75
    assert set(m.provinces) == {*ALL_PROVINCES, "swi"}
    assert list(m.provinces) == sorted(m.provinces)
    counts = {k: sum(1 for p in m.provinces if m.kind[p] is k) for k in ProvinceKind}
    assert counts == {
        ProvinceKind.LAND: 14,
        ProvinceKind.COAST: 42,
        ProvinceKind.SEA: 19,
        ProvinceKind.IMPASSABLE: 1,
    }
    assert m.kind["swi"] is ProvinceKind.IMPASSABLE
    assert m.kind["bur"] is ProvinceKind.LAND
    assert m.kind["stp"] is ProvinceKind.COAST
    assert m.kind["hel"] is ProvinceKind.SEA


def test_names(m: Map) -> None:
    assert m.province_name["stp"] == "St Petersburg"
    assert m.province_name["mao"] == "Mid-Atlantic Ocean"
    assert m.province_name["gol"] == "Gulf of Lyon"
    assert m.province_name["swi"] == "Switzerland"
    assert m.location_name("stp/nc") == "St Petersburg (north coast)"
    assert m.location_name("bul/ec") == "Bulgaria (east coast)"
    assert m.location_name("spa/sc") == "Spain (south coast)"
    assert m.location_name("lon") == "London"
    assert all(m.province_name[p] for p in m.provinces)


def test_coasts(m: Map) -> None:
    assert m.coasts == SPLIT_COASTS
    assert m.province_of("stp/nc") == "stp"
    assert m.province_of("bul/sc") == "bul"
    assert m.province_of("lon") == "lon"


def test_daide_tokens(m: Map) -> None:
    expected = {
        "eng": "ECH", "nao": "NAO", "mao": "MAO", "gol": "GOL", "nwg": "NWG", "bot": "GOB",
        "lvp": "LVP", "nwy": "NWY", "tys": "TYS", "naf": "NAF", "lvn": "LVN", "hel": "HEL",
        "ska": "SKA", "swi": "SWI", "stp": "STP", "par": "PAR",
    }  # fmt: skip
    for prov, token in expected.items():
        assert m.daide[prov] == token
    assert m.daide["stp/nc"] == "(STP NCS)"
    assert m.daide["spa/sc"] == "(SPA SCS)"
    assert m.daide["bul/ec"] == "(BUL ECS)"
    assert set(m.daide) == {*m.provinces, *(c for cs in SPLIT_COASTS.values() for c in cs)}
    tokens = [m.daide[p] for p in m.provinces]
    assert len(set(tokens)) == len(tokens)
    assert all(len(t) == 3 and t.isupper() for t in tokens)


def test_supply_centres(m: Map) -> None:
    assert len(m.supply_centres) == 34
    homes = m.home_centres
    assert set(homes) == set(m.powers)
    assert sum(len(h) for h in homes.values()) == 22
    for power, centres in homes.items():
        assert len(centres) == (4 if power == "Russia" else 3), power
        assert centres <= m.supply_centres
    assert homes["Russia"] == {"mos", "sev", "stp", "war"}
    assert homes["Turkey"] == {"ank", "con", "smy"}
    assert homes["England"] == {"edi", "lon", "lvp"}
    neutral = m.supply_centres - {c for h in homes.values() for c in h}
    assert neutral == {
        "bel", "bul", "den", "gre", "hol", "nwy", "por", "rum", "ser", "spa", "swe", "tun",
    }  # fmt: skip
    assert m.start_centres == {c: p for p, cs in homes.items() for c in cs}
    assert not any(m.is_sea(c) for c in m.supply_centres)


def test_start_units(m: Map) -> None:
    assert len(m.start_units) == 22
    assert Unit("Russia", FLEET, "stp/sc") in m.start_units
    expected = {
        ("Austria", ARMY, "bud"), ("Austria", ARMY, "vie"), ("Austria", FLEET, "tri"),
        ("England", FLEET, "edi"), ("England", FLEET, "lon"), ("England", ARMY, "lvp"),
        ("France", FLEET, "bre"), ("France", ARMY, "mar"), ("France", ARMY, "par"),
        ("Germany", FLEET, "kie"), ("Germany", ARMY, "ber"), ("Germany", ARMY, "mun"),
        ("Italy", FLEET, "nap"), ("Italy", ARMY, "rom"), ("Italy", ARMY, "ven"),
        ("Russia", ARMY, "mos"), ("Russia", FLEET, "sev"), ("Russia", FLEET, "stp/sc"),
        ("Russia", ARMY, "war"),
        ("Turkey", FLEET, "ank"), ("Turkey", ARMY, "con"), ("Turkey", ARMY, "smy"),
    }  # fmt: skip
    assert {(u.power, u.type, u.location) for u in m.start_units} == expected
    for unit in m.start_units:
        assert m.can_hold(unit.type, unit.location)
        assert unit.province in m.home_centres[unit.power]


# -- adjacency structure ------------------------------------------------------------------


def test_adjacency_keys(m: Map) -> None:
    landish = {p for p in m.provinces if m.kind[p] in (ProvinceKind.LAND, ProvinceKind.COAST)}
    assert set(m.army_adj) == landish
    seas = {p for p in m.provinces if m.kind[p] is ProvinceKind.SEA}
    plain_coasts = {
        p for p in m.provinces if m.kind[p] is ProvinceKind.COAST and p not in SPLIT_COASTS
    }
    coast_locs = {c for cs in SPLIT_COASTS.values() for c in cs}
    assert set(m.fleet_adj) == seas | plain_coasts | coast_locs
    assert "stp" not in m.fleet_adj and "spa" not in m.fleet_adj and "bul" not in m.fleet_adj
    assert set(m.fleet_adj_prov) == set(m.fleet_adj)
    for loc, dests in m.fleet_adj.items():
        assert m.fleet_adj_prov[loc] == {m.province_of(d) for d in dests}


def test_army_adjacency_symmetric(m: Map) -> None:
    for a, dests in m.army_adj.items():
        assert a not in dests
        for b in dests:
            assert a in m.army_adj[b], f"{a}-{b}"


def test_fleet_adjacency_symmetric(m: Map) -> None:
    for a, dests in m.fleet_adj.items():
        for b in dests:
            assert a in m.fleet_adj[b], f"{a}-{b}"
            assert m.province_of(a) != m.province_of(b)


def test_armies_never_at_sea(m: Map) -> None:
    for a, dests in m.army_adj.items():
        assert m.is_land(a)
        for b in dests:
            assert m.kind[b] in (ProvinceKind.LAND, ProvinceKind.COAST), f"{a}-{b}"
            assert "/" not in b


def test_fleets_only_on_water_or_coast(m: Map) -> None:
    for a, dests in m.fleet_adj.items():
        assert m.kind[m.province_of(a)] in (ProvinceKind.SEA, ProvinceKind.COAST)
        for b in dests:
            assert b in m.fleet_adj, f"{a}-{b}"
            assert m.kind[m.province_of(b)] in (ProvinceKind.SEA, ProvinceKind.COAST)
            assert b not in SPLIT_COASTS, f"{a}-{b} names a split province without its coast"
        # Every coast a fleet can stand on touches at least one sea.
        assert m.is_sea(a) or any(m.is_sea(b) for b in dests), a


def test_coast_to_coast_fleet_moves_are_army_moves_too(m: Map) -> None:
    for a, dests in m.fleet_adj_prov.items():
        for b in dests:
            if m.is_coastal(a) and m.is_coastal(b):
                assert b in m.army_adj[m.province_of(a)], f"{a}-{b}"


def test_switzerland_is_isolated(m: Map) -> None:
    assert "swi" not in m.army_adj
    assert "swi" not in m.fleet_adj
    assert all("swi" not in d for d in m.army_adj.values())
    assert all("swi" not in d for d in m.fleet_adj_prov.values())
    assert not m.can_hold(ARMY, "swi")
    assert not m.can_hold(FLEET, "swi")
    assert not m.is_land("swi") and not m.is_sea("swi")


def _reachable(start: str, graph: dict[str, set[str]]) -> set[str]:
    seen = {start}
    queue = deque([start])
    while queue:
        for nxt in graph.get(queue.popleft(), set()):
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


def test_map_is_connected(m: Map) -> None:
    graph: dict[str, set[str]] = {}
    for a, dests in m.army_adj.items():
        graph.setdefault(a, set()).update(dests)
    for a, dests in m.fleet_adj_prov.items():
        graph.setdefault(m.province_of(a), set()).update(dests)
    assert _reachable("par", graph) == set(ALL_PROVINCES)
    fleet_graph = {a: set(d) for a, d in m.fleet_adj.items()}
    assert _reachable("nth", fleet_graph) == set(m.fleet_adj)


def test_adjacency_counts(m: Map) -> None:
    assert sum(len(d) for d in m.army_adj.values()) == 2 * 111
    assert sum(len(d) for d in m.fleet_adj.values()) == 2 * 141


# -- spot checks ----------------------------------------------------------------------------


FLEET_NEIGHBOURS = {
    "stp/nc": {"bar", "nwy"},
    "stp/sc": {"bot", "fin", "lvn"},
    "spa/nc": {"mao", "gas", "por"},
    "spa/sc": {"mao", "gol", "wes", "por", "mar"},
    "bul/ec": {"bla", "con", "rum"},
    "bul/sc": {"aeg", "con", "gre"},
    "kie": {"den", "hel", "hol", "ber", "bal"},
    "con": {"ank", "bla", "aeg", "bul/ec", "bul/sc", "smy"},
    "mao": {"bre", "eng", "gas", "iri", "naf", "nao", "por", "spa/nc", "spa/sc", "wes"},
    "nth": {"bel", "den", "edi", "eng", "hel", "hol", "lon", "nwg", "nwy", "ska", "yor"},
    "ion": {"adr", "aeg", "alb", "apu", "eas", "gre", "nap", "tun", "tys"},
    "gre": {"aeg", "alb", "bul/sc", "ion"},
    "den": {"bal", "hel", "kie", "nth", "ska", "swe"},
    "swe": {"bal", "bot", "den", "fin", "nwy", "ska"},
    "nwy": {"bar", "nth", "nwg", "ska", "stp/nc", "swe"},
    "bar": {"nwg", "nwy", "stp/nc"},
    "gas": {"bre", "mao", "spa/nc"},
    "mar": {"gol", "pie", "spa/sc"},
    "por": {"mao", "spa/nc", "spa/sc"},
    "arm": {"ank", "bla", "sev"},
    "rum": {"bla", "bul/ec", "sev"},
    "wal": {"eng", "iri", "lon", "lvp"},
    "yor": {"edi", "lon", "nth"},
    "lvp": {"cly", "iri", "nao", "wal"},
    "tys": {"gol", "ion", "nap", "rom", "tun", "tus", "wes"},
}

ARMY_NEIGHBOURS = {
    "stp": {"fin", "lvn", "mos", "nwy"},
    "spa": {"gas", "mar", "por"},
    "bul": {"con", "gre", "rum", "ser"},
    "bur": {"bel", "gas", "mar", "mun", "par", "pic", "ruh"},
    "mun": {"ber", "boh", "bur", "kie", "ruh", "sil", "tyr"},
    "gal": {"boh", "bud", "rum", "sil", "ukr", "vie", "war"},
    "tri": {"alb", "bud", "ser", "tyr", "ven", "vie"},
    "ven": {"apu", "pie", "rom", "tri", "tus", "tyr"},
    "ser": {"alb", "bud", "bul", "gre", "rum", "tri"},
    "den": {"kie", "swe"},
    "naf": {"tun"},
    "lvp": {"cly", "edi", "wal", "yor"},
    "con": {"ank", "bul", "smy"},
    "arm": {"ank", "sev", "smy", "syr"},
}


@pytest.mark.parametrize("loc", sorted(FLEET_NEIGHBOURS))
def test_fleet_spot_checks(m: Map, loc: str) -> None:
    assert m.fleet_adj[loc] == FLEET_NEIGHBOURS[loc]


@pytest.mark.parametrize("prov", sorted(ARMY_NEIGHBOURS))
def test_army_spot_checks(m: Map, prov: str) -> None:
    assert m.army_adj[prov] == ARMY_NEIGHBOURS[prov]


@pytest.mark.parametrize(
    ("a", "b", "army", "fleet"),
    [
        ("mar", "spa/nc", None, False),
        ("mar", "spa/sc", None, True),
        ("mar", "spa", True, None),
        ("gas", "spa/sc", None, False),
        ("arm", "sev", True, True),
        ("arm", "syr", True, False),
        ("pie", "tyr", True, None),
        ("pie", "ven", True, False),
        ("tus", "ven", True, False),
        ("rom", "ven", True, False),
        ("apu", "rom", True, False),
        ("ruh", "kie", True, None),
        ("den", "swe", True, True),
        ("kie", "den", True, True),
        ("ber", "pru", True, True),
        ("fin", "nwy", True, False),
        ("nwy", "stp/nc", None, True),
        ("nwy", "stp/sc", None, False),
        ("fin", "stp/nc", None, False),
        ("lvn", "stp/sc", None, True),
        ("wal", "yor", True, False),
        ("lon", "yor", True, True),
        ("edi", "lvp", True, False),
        ("gas", "mar", True, False),
        ("ank", "smy", True, False),
        ("con", "smy", True, True),
        ("ank", "con", True, True),
        ("bal", "ska", None, False),
        ("bal", "hel", None, False),
        ("gre", "adr", None, False),
        ("alb", "ion", None, True),
        ("nap", "ion", None, True),
        ("rum", "bul/sc", None, False),
        ("tun", "naf", True, True),
        ("bot", "stp/sc", None, True),
        ("bar", "stp/sc", None, False),
        ("boh", "gal", True, None),
        ("sil", "war", True, None),
        ("ukr", "rum", True, None),
        ("bud", "rum", True, None),
        ("ser", "bud", True, None),
        ("mos", "stp", True, None),
        ("iri", "nao", None, True),
        ("nwg", "nao", None, True),
        ("eng", "iri", None, True),
        ("bel", "hol", True, True),
        ("hol", "hel", None, True),
        ("lvp", "edi", True, False),
        ("cly", "nwg", None, True),
        ("yor", "nwg", None, False),
    ],
)
def test_edges(m: Map, a: str, b: str, army: bool | None, fleet: bool | None) -> None:
    if army is not None:
        assert (b in m.army_adj.get(a, frozenset())) is army
        assert (a in m.army_adj.get(b, frozenset())) is army
    if fleet is not None:
        assert (b in m.fleet_adj.get(a, frozenset())) is fleet
        assert (a in m.fleet_adj.get(b, frozenset())) is fleet


def test_queries(m: Map) -> None:
    assert m.is_sea("nth") and not m.is_sea("lon") and not m.is_sea("bur")
    assert m.is_land("bur") and m.is_land("lon") and not m.is_land("nth")
    assert m.is_coastal("lon") and not m.is_coastal("bur") and not m.is_coastal("nth")
    assert m.is_coastal("stp") and m.is_coastal("stp/nc")
    assert m.can_hold(ARMY, "bur") and m.can_hold(ARMY, "stp")
    assert not m.can_hold(ARMY, "stp/nc") and not m.can_hold(ARMY, "nth")
    assert m.can_hold(FLEET, "stp/nc") and m.can_hold(FLEET, "nth") and m.can_hold(FLEET, "lon")
    assert not m.can_hold(FLEET, "stp") and not m.can_hold(FLEET, "bur")
    assert not m.can_hold(FLEET, "xyz") and not m.can_hold(ARMY, "xyz")


def test_keys_interned(m: Map) -> None:
    for key in [*m.provinces, *m.army_adj, *m.fleet_adj, *m.aliases.values()]:
        assert sys.intern(key) is key
    for dests in [*m.army_adj.values(), *m.fleet_adj.values()]:
        for key in dests:
            assert sys.intern(key) is key


def test_standard_map_cached() -> None:
    assert standard_map() is standard_map()


# -- names ----------------------------------------------------------------------------------


def test_normalise_name() -> None:
    assert normalise_name("St. Petersburg") == "stpetersburg"
    assert normalise_name("ST-PETERSBURG") == "stpetersburg"
    assert normalise_name(" (STP NCS) ") == "stpncs"


ALIASES = {
    "lvp": ["Liverpool", "lvp", "lpl"],
    "nwy": ["Norway", "nwy", "nor"],
    "nao": ["North Atlantic", "nao", "nat", "North Atlantic Ocean"],
    "mao": ["Mid-Atlantic", "mao", "mid", "mat", "Mid Atlantic Ocean", "Mid-Atlantic Ocean"],
    "gol": ["Gulf of Lyon", "gol", "lyo", "Gulf of Lyons", "Gulf of Lions", "GOL"],
    "nwg": ["Norwegian Sea", "nwg", "nrg", "NWG"],
    "eng": ["English Channel", "eng", "ech", "ECH", "Channel"],
    "bot": ["Gulf of Bothnia", "bot", "gob", "GOB", "GoB"],
    "lvn": ["Livonia", "lvn", "lvo", "liv", "LVN", "Lvn"],
    "naf": ["North Africa", "naf", "nafr", "NAf", "NAF"],
    "tys": ["Tyrrhenian Sea", "Tyrrhenian", "tys", "tyn", "tyrr", "TYS"],
    "hel": ["Helgoland Bight", "Heligoland Bight", "hel", "Helgoland", "HEL"],
    "ska": ["Skagerrak", "Skagerack", "ska", "SKA"],
    "rum": ["Rumania", "Romania", "rum"],
    "tyr": ["Tyrolia", "Tyrol", "tyr"],
    "mun": ["Munich", "Muenchen", "mun"],
    "con": ["Constantinople", "con"],
    "stp": ["St Petersburg", "St. Petersburg", "Saint Petersburg", "stp", "st petersburg",
            "ST-PETERSBURG", "STP"],
    "sev": ["Sevastopol", "sev"],
    "edi": ["Edinburgh", "edi"],
    "bar": ["Barents Sea", "Barents", "bar"],
    "bla": ["Black Sea", "bla", "Black"],
    "bal": ["Baltic Sea", "Baltic", "bal"],
    "iri": ["Irish Sea", "iri", "Irish"],
    "ion": ["Ionian Sea", "ion", "Ionian"],
    "eas": ["Eastern Mediterranean", "eas", "East Med", "EMed"],
    "wes": ["Western Mediterranean", "wes", "West Med", "WMed"],
    "nth": ["North Sea", "nth", "NTH"],
    "swi": ["Switzerland", "swi", "Swiss"],
    "hol": ["Holland", "hol"],
    "bel": ["Belgium", "bel"],
    "por": ["Portugal", "por"],
    "spa": ["Spain", "spa"],
    "bul": ["Bulgaria", "bul"],
    "lon": ["London", "lon"],
    "yor": ["Yorkshire", "York", "yor"],
    "aeg": ["Aegean Sea", "Aegean", "aeg"],
    "adr": ["Adriatic Sea", "Adriatic", "adr"],
}  # fmt: skip


@pytest.mark.parametrize(("prov", "names"), sorted(ALIASES.items()))
def test_aliases_resolve(m: Map, prov: str, names: list[str]) -> None:
    for name in names:
        assert m.find_province(name) == prov, name
        assert m.find_location(name) == prov, name
        assert m.find_province(name.upper()) == prov, name
        assert m.find_province(f"  {name.lower()} ") == prov, name


def test_every_province_by_abbr_daide_and_name(m: Map) -> None:
    for prov in m.provinces:
        assert m.find_province(prov) == prov
        assert m.find_province(m.daide[prov]) == prov
        assert m.find_province(m.province_name[prov]) == prov
        assert m.aliases[prov] == prov


def test_no_alias_is_short_or_a_keyword(m: Map) -> None:
    for alias in m.aliases:
        assert len(alias) >= 3, alias
        assert alias not in RESERVED_WORDS, alias
        assert alias == normalise_name(alias)
    for word in RESERVED_WORDS:
        assert m.find_province(word) is None, word
        assert m.find_location(word) is None, word


def test_power_words_are_not_provinces(m: Map) -> None:
    for power in m.powers:
        for word in (power, m.power_adjective[power]):
            assert m.find_province(word) is None, word
    assert m.find_province("Prussia") == "pru"
    assert m.find_power("Prussia") is None


def test_aliases_table(m: Map) -> None:
    assert m.aliases["stpetersburg"] == "stp"
    assert m.aliases["ech"] == "eng"
    assert m.aliases["stpnc"] == "stp/nc"
    assert m.aliases["spainsouthcoast"] == "spa/sc"
    assert m.aliases["midatlanticocean"] == "mao"
    assert all(v in m.daide for v in m.aliases.values())


@pytest.mark.parametrize(
    ("text", "prov"),
    [
        ("Edinborough", "edi"),
        ("Portugul", "por"),
        ("Sevastapol", "sev"),
        ("Constantinopel", "con"),
        ("Tyrrenian", "tys"),
        ("Tyrrenian Sea", "tys"),
        ("Skaggerak", "ska"),
        ("Bohemnia", "boh"),
        ("Burgandy", "bur"),
        ("Galacia", "gal"),
        # fuzzy: one typo in six or more letters
        ("Liverpoool", "lvp"),
        ("Sevastpool", "sev"),
        ("Bohemai", "boh"),
        ("Yorkshrie", "yor"),
        ("Warsww", "war"),
        ("Marseilels", "mar"),
        ("Norwegain Sea", "nwg"),
        ("Tunsi", None),  # five letters: too short for a typo
        ("Lonon", None),
        ("Norxsea", None),  # one typo from both "norsea" (nth) and "norwsea" (nwg)
        ("Xyzzy", None),
        ("", None),
        ("  ", None),
        ("Russia", None),  # a power, although one letter from Prussia
        ("Munchen", "mun"),
        ("München", "mun"),
        ("the North Sea", "nth"),
        ("the Ruhr", "ruh"),
    ],
)
def test_misspellings_and_fuzzy(m: Map, text: str, prov: str | None) -> None:
    assert m.find_province(text) == prov


@pytest.mark.parametrize(
    ("text", "loc"),
    [
        ("stp/nc", "stp/nc"),
        ("stp(nc)", "stp/nc"),
        ("stp (nc)", "stp/nc"),
        ("stp nc", "stp/nc"),
        ("stp north coast", "stp/nc"),
        ("St Petersburg (north coast)", "stp/nc"),
        ("St. Petersburg north coast", "stp/nc"),
        ("stp.nc", "stp/nc"),
        ("stp/ncs", "stp/nc"),
        ("STP/NC", "stp/nc"),
        ("(STP NCS)", "stp/nc"),
        ("stp/n", "stp/nc"),
        ("stp (n)", "stp/nc"),
        ("stp/sc", "stp/sc"),
        ("St Petersburg south coast", "stp/sc"),
        ("spa/sc", "spa/sc"),
        ("spa/nc", "spa/nc"),
        ("Spain (south coast)", "spa/sc"),
        ("spain s", "spa/sc"),
        ("(SPA SCS)", "spa/sc"),
        ("bul/ec", "bul/ec"),
        ("bul east coast", "bul/ec"),
        ("Bulgaria (ec)", "bul/ec"),
        ("bul/e", "bul/ec"),
        ("bul/sc", "bul/sc"),
        ("Bulgaria south coast", "bul/sc"),
        ("(BUL SCS)", "bul/sc"),
        ("stp", "stp"),
        ("Spain", "spa"),
        ("Bulgaria", "bul"),
        ("London", "lon"),
        ("ECH", "eng"),
        ("Bulgaria (sc", "bul/sc"),
        ("Bulgarai/ec", "bul/ec"),  # typo in the province, coast written
        ("spa/ec", None),  # no such coast
        ("stp/ec", None),
        ("bul/nc", "bul/ec"),  # some boards call the Black Sea coast the north coast
        ("lon/nc", None),
    ],
)
def test_find_location(m: Map, text: str, loc: str | None) -> None:
    assert m.find_location(text) == loc


def test_find_province_drops_coast(m: Map) -> None:
    assert m.find_province("stp/nc") == "stp"
    assert m.find_province("stpnc") == "stp"
    assert m.find_province("St Petersburg (north coast)") == "stp"
    assert m.find_province("(SPA SCS)") == "spa"
    assert m.find_province("bul/ec") == "bul"
    assert m.find_province("spa/ec") == "spa"  # a coast it lacks: still the province


@pytest.mark.parametrize(
    ("text", "power"),
    [
        ("england", "England"),
        ("ENGLAND", "England"),
        ("ENG", "England"),
        ("eng", "England"),
        ("English", "England"),
        ("E", "England"),
        ("e", "England"),
        ("Germnay", "Germany"),
        ("Grmany", "Germany"),
        ("Frnace", "France"),
        ("Itlay", "Italy"),
        ("Rusia", "Russia"),
        ("Turky", "Turkey"),
        ("Austrai", "Austria"),
        ("fr", "France"),
        ("tur", "Turkey"),
        ("ger", "Germany"),
        ("ru", "Russia"),
        ("aus", "Austria"),
        ("AUS", "Austria"),
        ("TUR", "Turkey"),
        ("Turkish", "Turkey"),
        ("Russian", "Russia"),
        ("ital", "Italy"),
        ("engl", "England"),
        ("A", "Austria"),
        ("x", None),
        ("", None),
        ("Prussia", None),
        ("Spain", None),
        ("zzz", None),
    ],
)
def test_find_power(m: Map, text: str, power: str | None) -> None:
    assert m.find_power(text) == power


# -- loading other maps ---------------------------------------------------------------------

TINY = """\
# A three-province test map.
variant Tiny
power   Utopia  Utopian  U  UTO
power   Erewhon Erewhonian E EWH
coastcode nc NCS north coast | north, n
coastcode sc SCS south coast | south, s
province  aaa  coast  Utopia   AAA  Alpha        | alfa, first place
province  bbb  coast  sc       BBB  Beta Land
province  ccc  sea    -        CCC  Gamma Sea    | gamma
coasts    bbb  nc sc
alias     ccc  the deep
army      aaa  bbb
army      bbb  aaa
fleet     aaa  bbb/nc bbb/sc ccc
fleet     bbb/nc  aaa ccc
fleet     bbb/sc  aaa
fleet     ccc  aaa bbb/nc
unit      Utopia  F  aaa
unit      Erewhon A  bbb
"""


def test_from_text_tiny_map() -> None:
    tiny = Map.from_text(TINY)
    assert tiny.name == "Tiny"
    assert tiny.powers == ("Erewhon", "Utopia")
    assert tiny.power_letter == {"Erewhon": "E", "Utopia": "U"}
    assert tiny.provinces == ("aaa", "bbb", "ccc")
    assert tiny.coasts == {"bbb": ("bbb/nc", "bbb/sc")}
    assert tiny.army_adj == {"aaa": {"bbb"}, "bbb": {"aaa"}}
    assert tiny.fleet_adj == {
        "aaa": {"bbb/nc", "bbb/sc", "ccc"},
        "bbb/nc": {"aaa", "ccc"},
        "bbb/sc": {"aaa"},
        "ccc": {"aaa", "bbb/nc"},
    }
    assert tiny.fleet_adj_prov["ccc"] == {"aaa", "bbb"}
    assert tiny.supply_centres == {"aaa", "bbb"}
    assert tiny.home_centres == {"Utopia": {"aaa"}, "Erewhon": frozenset()}
    assert tiny.start_centres == {"aaa": "Utopia"}  # no owns record: the home centres
    assert tiny.start_units == (Unit("Utopia", FLEET, "aaa"), Unit("Erewhon", ARMY, "bbb"))
    assert tiny.find_province("First Place") == "aaa"
    assert tiny.find_province("the deep") == "ccc"
    assert tiny.find_location("Beta Land (south coast)") == "bbb/sc"
    assert tiny.find_location("bbb/n") == "bbb/nc"
    assert tiny.daide["bbb/sc"] == "(BBB SCS)"
    assert tiny.location_name("bbb/nc") == "Beta Land (north coast)"
    assert tiny.find_power("utopian") == "Utopia"


@pytest.mark.parametrize(
    ("replace", "by", "line", "words"),
    [
        ("fleet     bbb/sc  aaa\n", "fleet     bbb/sc\n", 14, "not listed"),
        ("army      bbb  aaa\n", "army      bbb  aaa ccc\n", 13, "no army can be in 'ccc'"),
        ("army      bbb  aaa\n", "army      bbb\n", 12, "not listed"),
        ("alias     ccc  the deep\n", "alias     ccc  hold\n", 11, "keyword"),
        ("alias     ccc  the deep\n", "alias     ccc  cc\n", 11, "three"),
        ("alias     ccc  the deep\n", "alias     ccc  alfa\n", 11, "already names"),
        ("alias     ccc  the deep\n", "alias     ddd  delta\n", 11, "unknown location"),
        ("alias     ccc  the deep\n", "allias    ccc  the deep\n", 11, "unknown record"),
        ("sea    -", "ocean  -", 9, "kind"),
        ("coast  sc ", "coast  Narnia ", 8, "Narnia"),
        ("fleet     ccc  aaa bbb/nc\n", "fleet     ccc  aaa bbb/nc bbb\n", 17, "no fleet"),
        ("unit      Erewhon A  bbb\n", "unit      Erewhon F  bbb\n", 19, "fleet"),
        ("unit      Erewhon A  bbb\n", "unit      Erewhon A  aaa\n", 19, "second unit"),
        ("unit      Erewhon A  bbb\n", "unit      Narnia A  bbb\n", 19, "Narnia"),
        ("unit      Erewhon A  bbb\n", "owns Erewhon ccc\n", 19, "not a supply centre"),
        ("coasts    bbb  nc sc\n", "coasts    bbb  nc wc\n", 10, "coast code"),
        ("variant Tiny\n", "\n", 19, "variant"),
        ("variant Tiny\n", "variant Tiny\nvariant Again\n", 3, "second variant"),
        ("Erewhon Erewhonian E EWH", "Erewhon Erewhonian U EWH", 4, "already names Utopia"),
    ],
)
def test_bad_map_file_names_line(replace: str, by: str, line: int, words: str) -> None:
    assert replace in TINY
    with pytest.raises(ValueError, match=rf"^map file line {line}: .*{words}"):
        Map.from_text(TINY.replace(replace, by, 1))


# -- home countries (issue 10) --------------------------------------------------------------


def test_standard_home_countries(m: Map) -> None:
    # All the provinces of each power's colour on the standard board, not only its centres.
    assert m.home_country == {
        "Austria": {"boh", "bud", "gal", "tri", "tyr", "vie"},
        "England": {"cly", "edi", "lon", "lvp", "wal", "yor"},
        "France": {"bre", "bur", "gas", "mar", "par", "pic"},
        "Germany": {"ber", "kie", "mun", "pru", "ruh", "sil"},
        "Italy": {"apu", "nap", "pie", "rom", "tus", "ven"},
        "Russia": {"fin", "lvn", "mos", "sev", "stp", "ukr", "war"},
        "Turkey": {"ank", "arm", "con", "smy", "syr"},
    }
    for power in m.powers:
        assert m.home_centres[power] <= m.home_country[power]
    assert m.home_country_of("lvn") == "Russia"
    assert m.home_country_of("pru") == "Germany"
    assert m.home_country_of("bel") is None
    assert m.home_country_of("stp/nc") == "Russia"


def test_home_country_defaults_to_home_centres() -> None:
    tiny = Map.from_text(TINY)
    assert tiny.home_country == {"Utopia": {"aaa"}, "Erewhon": frozenset()}
    homed = Map.from_text(TINY + "home Erewhon bbb\nhome Utopia aaa\n")
    assert homed.home_country == {"Utopia": {"aaa"}, "Erewhon": {"bbb"}}


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ("home Utopia\n", "a home record is: home <Power> <province>"),
        ("home Narnia aaa\n", "undeclared power 'Narnia'"),
        ("home Utopia ddd\n", "unknown province 'ddd'"),
        ("home Utopia aaa ccc\n", "sea province 'ccc' cannot be in a home country"),
        ("home Utopia aaa bbb\nhome Erewhon bbb\n", "'bbb' is already in Utopia's home country"),
        ("home Utopia bbb\n", "home centre 'aaa' of Utopia is not in its home country"),
        ("home Utopia aaa aaa\n", "'aaa' is already in Utopia's home country"),
    ],
)
def test_bad_home_record(extra: str, words: str) -> None:
    with pytest.raises(ValueError, match=r"^map file line 2[01]: ") as err:
        Map.from_text(TINY + extra)
    assert words in str(err.value)


def test_non_ascii_letters_are_kept_when_matching_names(m: Map) -> None:
    # "Grüße" is not "gre" with two letters dropped: no province, no coast, no power.
    assert normalise_name("Grüße") == "grüße"
    assert normalise_name("St. Pétersbourg") == "stpétersbourg"
    assert m.find_province("Grüße") is None
    assert m.find_location("Grüße") is None
    assert m.find_province("Gre") == "gre"
    # An accented letter still counts as one typo in a long enough name.
    assert m.find_province("Bélgium") == "bel"
    assert m.find_power("Ítaly") == "Italy"


def test_fuzzy_matching_is_bounded(m: Map) -> None:
    # One typo is looked for only in names of up to thirty letters; a longer text matches
    # exactly or not at all, so the work per word stays small.
    assert m.find_province("Mid Atlantic Oceam") == "mao"
    long_name = "Norwegian Sea" + "x" * 30
    assert m.find_province(long_name) is None
    assert m.find_power("g" * 200) is None


def test_a_long_text_is_no_place_and_costs_little(m: Map) -> None:
    # Issue 11: a word of a megabyte (one base64-encoded line) used to run a regular
    # expression that backtracks over every split of the text (13 s at 30,000 letters).
    # No place name is longer than a few dozen characters: a longer text is looked up
    # exactly, once, and never searched for coasts or typos.
    started = time.process_time()
    for text in ("q" * 1_000_000, "q" * 500_000 + " c", "Paris" + " " * 500_000 + "x"):
        assert m.find_province(text) is None
        assert m.find_location(text) is None
    assert time.process_time() - started < 5
    assert m.find_location("St Petersburg (north coast)") == "stp/nc"
    assert m.find_location("Mid-Atlantic Ocean") == "mao"
