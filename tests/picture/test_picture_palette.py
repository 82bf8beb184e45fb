"""The powers' colours: Okabe-Ito for the standard powers, a contrasting letter on each."""

from __future__ import annotations

from judge.engine import standard_map
from judge.picture.palette import BOARD, PowerStyle, contrast_text, mix, power_styles


def test_standard_powers_colours_letters_and_inks() -> None:
    game_map = standard_map()
    styles = power_styles(game_map.powers, game_map.power_letter)
    assert {p: (s.fill, s.letter, s.ink) for p, s in styles.items()} == {
        "Austria": ("#D55E00", "A", "#000000"),
        "England": ("#0072B2", "E", "#FFFFFF"),
        "France": ("#56B4E9", "F", "#000000"),
        "Germany": ("#555555", "G", "#FFFFFF"),
        "Italy": ("#009E73", "I", "#000000"),
        "Russia": ("#CC79A7", "R", "#000000"),
        "Turkey": ("#F0E442", "T", "#000000"),
    }
    # The home tint is the colour faded into the land colour.
    assert styles["England"].tint == mix("#0072B2", BOARD.land, 0.7)


def test_powers_of_other_maps_get_the_spare_colours_in_turn() -> None:
    styles = power_styles(("Erewhon", "France", "Utopia"), {"Erewhon": "E", "France": "F"})
    assert styles == {
        "Erewhon": PowerStyle("#E69F00", "E", "#000000", mix("#E69F00", BOARD.land, 0.7)),
        "France": PowerStyle("#56B4E9", "F", "#000000", mix("#56B4E9", BOARD.land, 0.7)),
        "Utopia": PowerStyle("#000000", "U", "#FFFFFF", mix("#000000", BOARD.land, 0.7)),
    }


def test_contrast_and_mix() -> None:
    assert contrast_text("#FFFFFF") == "#000000"
    assert contrast_text("#000000") == "#FFFFFF"
    assert mix("#D55E00", "#FFFFFF", 0.0) == "#D55E00"
    assert mix("#D55E00", "#FFFFFF", 1.0) == "#FFFFFF"
