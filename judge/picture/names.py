"""The names drawn on the map: the house rules' province abbreviations (seed 003, 5.1-5.2).

A province is named by the first three letters of its full name, in capitals for a sea
and with an initial capital for land (``Bur``, ``NTH``'s rule aside); the house rules list
exceptions where the first three letters would be ambiguous or odd (``GoB``, ``NAf``,
``StP``...).  The abbreviation is derived from the map file's full name, so a map other
than the standard one gets names by the same rule.
"""

from __future__ import annotations

from judge.engine.board import Map, ProvinceKind

__all__ = ["EXCEPTIONS", "abbreviation", "labels"]

#: The house rules' exceptions (5.2), keyed by full name as the standard map writes it
#: (letters only, lower case), plus St Petersburg, whose capital P the zine writes too.
EXCEPTIONS: dict[str, str] = {
    "gulfofbothnia": "GoB",
    "gulfoflyon": "GoL",
    "gulfoflyons": "GoL",
    "livonia": "Lvn",
    "liverpool": "Lpl",
    "midatlanticocean": "MAO",
    "northafrica": "NAf",
    "northatlanticocean": "NAO",
    "northsea": "NTH",
    "norway": "Nwy",
    "norwegiansea": "NWG",
    "tyrrheniansea": "TYS",
    "stpetersburg": "StP",
}


def _letters(name: str) -> str:
    # Letters only: "Mid-Atlantic Ocean" and "St. Petersburg" are read by their letters.
    return "".join(ch for ch in name if ch.isalpha())


def abbreviation(full_name: str, sea: bool) -> str:
    """The house abbreviation of a province called ``full_name``.

    >>> abbreviation("Burgundy", sea=False), abbreviation("Black Sea", sea=True)
    ('Bur', 'BLA')
    >>> abbreviation("Mid-Atlantic Ocean", sea=True), abbreviation("St Petersburg", sea=False)
    ('MAO', 'StP')
    """
    letters = _letters(full_name)
    special = EXCEPTIONS.get(letters.lower())
    if special is not None:
        return special
    first = letters[:3]
    return first.upper() if sea else first[:1].upper() + first[1:].lower()


def labels(game_map: Map) -> dict[str, str]:
    """Every province of ``game_map`` with the abbreviation drawn at its label point."""
    return {
        province: abbreviation(
            game_map.province_name[province], game_map.kind[province] is ProvinceKind.SEA
        )
        for province in game_map.provinces
    }
