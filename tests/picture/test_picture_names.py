"""The names on the map: the house rules' abbreviations (seed 003, 5.1-5.2)."""

from __future__ import annotations

import pytest

from judge.engine import standard_map
from judge.picture.names import abbreviation, labels


def test_every_standard_province_has_its_house_abbreviation() -> None:
    assert labels(standard_map()) == {
        "adr": "ADR", "aeg": "AEG", "alb": "Alb", "ank": "Ank", "apu": "Apu", "arm": "Arm",
        "bal": "BAL", "bar": "BAR", "bel": "Bel", "ber": "Ber", "bla": "BLA", "boh": "Boh",
        "bot": "GoB", "bre": "Bre", "bud": "Bud", "bul": "Bul", "bur": "Bur", "cly": "Cly",
        "con": "Con", "den": "Den", "eas": "EAS", "edi": "Edi", "eng": "ENG", "fin": "Fin",
        "gal": "Gal", "gas": "Gas", "gol": "GoL", "gre": "Gre", "hel": "HEL", "hol": "Hol",
        "ion": "ION", "iri": "IRI", "kie": "Kie", "lon": "Lon", "lvn": "Lvn", "lvp": "Lpl",
        "mao": "MAO", "mar": "Mar", "mos": "Mos", "mun": "Mun", "naf": "NAf", "nao": "NAO",
        "nap": "Nap", "nth": "NTH", "nwg": "NWG", "nwy": "Nwy", "par": "Par", "pic": "Pic",
        "pie": "Pie", "por": "Por", "pru": "Pru", "rom": "Rom", "ruh": "Ruh", "rum": "Rum",
        "ser": "Ser", "sev": "Sev", "sil": "Sil", "ska": "SKA", "smy": "Smy", "spa": "Spa",
        "stp": "StP", "swe": "Swe", "swi": "Swi", "syr": "Syr", "tri": "Tri", "tun": "Tun",
        "tus": "Tus", "tyr": "Tyr", "tys": "TYS", "ukr": "Ukr", "ven": "Ven", "vie": "Vie",
        "wal": "Wal", "war": "War", "wes": "WES", "yor": "Yor",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("name", "sea", "expected"),
    [
        ("Gulf of Bothnia", True, "GoB"),
        ("Gulf of Lyons", True, "GoL"),
        ("Gulf of Lyon", True, "GoL"),
        ("Livonia", False, "Lvn"),
        ("Liverpool", False, "Lpl"),
        ("Mid-Atlantic Ocean", True, "MAO"),
        ("North Africa", False, "NAf"),
        ("North Atlantic Ocean", True, "NAO"),
        ("North Sea", True, "NTH"),
        ("Norway", False, "Nwy"),
        ("Norwegian Sea", True, "NWG"),
        ("Tyrrhenian Sea", True, "TYS"),
        ("St. Petersburg", False, "StP"),
        ("beta land", False, "Bet"),
        ("gamma sea", True, "GAM"),
        ("O'Hara", False, "Oha"),
    ],
)
def test_abbreviation_rule_and_exceptions(name: str, sea: bool, expected: str) -> None:
    assert abbreviation(name, sea=sea) == expected
