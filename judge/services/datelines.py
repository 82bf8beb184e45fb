"""Press releases' datelines (house rules 10.2-10.3): who may use which.

The game master's dateline (``master_dateline``, "Versailles" by default) is the
master's only; each power's capital (Vienna, London, Paris, Berlin, Rome, St Petersburg,
Constantinople, and their three-letter forms) and "<Power> (Govt.)" are that power's: a
release under it is guaranteed genuine.  Any other dateline is free, and may deceive.

Datelines are compared by a key that ignores case, accents, dots, brackets, blanks and
anything else that is not a letter or digit (``ST. PETERSBURG``, ``St Petersburg``,
``Saint Petersburg`` and ``stpetersburg`` are one dateline; so are ``France (Govt.)``,
``France Govt`` and ``France Government``).  A dateline made to look like a reserved one
with letters of another script is not reserved, but neither is it ever marked genuine.
"""

from __future__ import annotations

import unicodedata

__all__ = ["MAX_DATELINE_CHARS", "dateline_key", "reserved_for"]

#: The longest dateline taken, in characters.
MAX_DATELINE_CHARS = 60

#: The seven capitals of the standard map, by power, in the words a dateline may use.
_CAPITALS: dict[str, tuple[str, ...]] = {
    "Austria": ("Vienna", "Vie"),
    "England": ("London", "Lon"),
    "France": ("Paris", "Par"),
    "Germany": ("Berlin", "Ber"),
    "Italy": ("Rome", "Rom"),
    "Russia": ("St Petersburg", "StP"),
    "Turkey": ("Constantinople", "Con"),
}
_GOVERNMENT = ("govt", "government")


def dateline_key(dateline: str) -> str:
    """The key a dateline is compared by: lower case, accents off, letters and digits
    only, and "Saint" as "St" (linear in the dateline's length).

    >>> dateline_key("Saint Petersburg"), dateline_key(" st. PETERS-burg ")
    ('stpetersburg', 'stpetersburg')
    >>> dateline_key("France (Govt.)"), dateline_key("Wïen")
    ('francegovt', 'wien')
    """
    text = unicodedata.normalize("NFKD", dateline.casefold())
    words: list[str] = []
    word: list[str] = []
    for char in text:
        if char.isascii() and char.isalnum():
            word.append(char)
        elif not unicodedata.combining(char) and word:
            words.append("".join(word))
            word = []
    if word:
        words.append("".join(word))
    if words and words[0] == "saint":
        words[0] = "st"
    return "".join(words)


def _reserved() -> dict[str, str]:
    table: dict[str, str] = {}
    for power, names in _CAPITALS.items():
        for name in names:
            table[dateline_key(name)] = power
        for word in _GOVERNMENT:
            table[dateline_key(f"{power} {word}")] = power
    return table


_RESERVED = _reserved()

#: Who a reserved dateline belongs to: the master.
MASTER = "master"


def reserved_for(dateline: str, master_dateline: str) -> str | None:
    """The power a ``dateline`` is reserved for, :data:`MASTER` for the game's own
    ``master_dateline``, or None for a free dateline.

    >>> reserved_for("VIENNA", "Versailles"), reserved_for("StP", "Versailles")
    ('Austria', 'Russia')
    >>> reserved_for("Turkey (Government)", "Versailles")
    'Turkey'
    >>> reserved_for("versailles.", "Versailles"), reserved_for("Munich", "Versailles")
    ('master', None)
    """
    key = dateline_key(dateline)
    if key and key == dateline_key(master_dateline):
        return MASTER
    return _RESERVED.get(key)
