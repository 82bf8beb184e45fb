"""Colours of the picture: the powers' (Okabe-Ito, readable with the common colour
blindnesses), the board's, and the letter drawn on each colour.

A unit or a centre shows its power by colour AND letter, so a reader who cannot tell two
colours apart still reads the letter; the letter is black or white, whichever contrasts
more with the fill (WCAG relative luminance).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "BOARD",
    "POWER_COLOURS",
    "Board",
    "PowerStyle",
    "contrast_text",
    "mix",
    "power_styles",
]

#: The standard powers' colours: Okabe-Ito, placed to follow the board's tradition.
POWER_COLOURS: dict[str, str] = {
    "Austria": "#D55E00",  # vermillion (red)
    "England": "#0072B2",  # blue
    "France": "#56B4E9",  # sky blue
    "Germany": "#555555",  # dark grey (the rule book's black)
    "Italy": "#009E73",  # bluish green
    "Russia": "#CC79A7",  # reddish purple (the board's white/purple)
    "Turkey": "#F0E442",  # yellow
}

#: Colours for the powers of other maps, in turn: the rest of Okabe-Ito, then darker ones.
_SPARE = ("#E69F00", "#000000", "#8C6BB1", "#A6761D", "#1B9E77", "#666666")


@dataclass(frozen=True, slots=True)
class PowerStyle:
    """How one power is drawn: its fill, its letter and the letter's colour, and the light
    tint of its home country."""

    fill: str
    letter: str
    ink: str
    tint: str


@dataclass(frozen=True, slots=True)
class Board:
    """The board's own colours."""

    sea: str = "#B9D6EC"
    land: str = "#F4EEDC"
    scenery: str = "#D9D9D9"
    impassable: str = "#BDBDBD"
    border: str = "#8A7F6A"
    sea_name: str = "#2B4C66"
    land_name: str = "#3A3226"
    halo: str = "#FFFFFF"
    neutral_centre: str = "#FFFFFF"
    ink: str = "#1A1A1A"
    sea_border: str = "#A7C4DA"
    band: str = "#FFFFFF"
    band_text: str = "#1A1A1A"
    key: str = "#A0A0A0"


BOARD = Board()


def _rgb(colour: str) -> tuple[int, int, int]:
    value = colour.lstrip("#")
    return (int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16))


def _luminance(colour: str) -> float:
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in _rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_text(fill: str) -> str:
    """Black or white, whichever reads better on ``fill`` (``#RRGGBB``).

    >>> contrast_text("#F0E442"), contrast_text("#0072B2")
    ('#000000', '#FFFFFF')
    """
    lum = _luminance(fill)
    # Contrast ratios against white (1.0) and black (0.0); the larger wins.
    on_white = 1.05 / (lum + 0.05)
    on_black = (lum + 0.05) / 0.05
    return "#000000" if on_black >= on_white else "#FFFFFF"


def mix(colour: str, other: str, share: float) -> str:
    """``colour`` with ``share`` (0..1) of ``other`` mixed in, as ``#RRGGBB``.

    >>> mix("#000000", "#FFFFFF", 0.5)
    '#808080'
    """
    a, b = _rgb(colour), _rgb(other)
    parts = (round(x + (y - x) * share) for x, y in zip(a, b, strict=True))
    return "#" + "".join(f"{p:02X}" for p in parts)


def power_styles(powers: Sequence[str], letters: dict[str, str]) -> dict[str, PowerStyle]:
    """Each power's style: the standard colours by name, the spare ones in turn for a
    power the standard board does not have."""
    spare = iter(_SPARE * (1 + len(powers) // len(_SPARE)))
    styles: dict[str, PowerStyle] = {}
    for power in powers:
        fill = POWER_COLOURS.get(power) or next(spare)
        styles[power] = PowerStyle(
            fill=fill,
            letter=letters.get(power, power[:1].upper()),
            ink=contrast_text(fill),
            tint=mix(fill, BOARD.land, 0.7),
        )
    return styles
