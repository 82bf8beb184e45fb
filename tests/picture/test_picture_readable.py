"""What a player must be able to read on the standard map's pictures: every province's
name (drawn again over the marks that cross it), every dislodged unit wholly in its
province and off its name, every fleet on a split coast at that coast."""

from __future__ import annotations

from support import pictures

from judge.engine import Position
from judge.picture import draw
from judge.picture.shapes import Scene, Text


def _scene(out: object) -> Scene:
    before, results, after = out.before, out.results, out.position  # type: ignore[attr-defined]
    return draw(before, results, after, title="Game demo", caption="x").scene


def _names_over(scene: Scene) -> list[str]:
    return [dict(g.data)["province"] for g in scene.groups if g.cls == "name-over"]


def _label_box(scene: Scene, province: str) -> tuple[float, float, float, float]:
    (name,) = [g for g in scene.board if g.cls == "name" and dict(g.data)["province"] == province]
    text = name.items[0]
    assert isinstance(text, Text)
    half_w, half_h = 0.3 * text.size * len(text.text) + 1.6, 0.5 * text.size + 1.6
    return (text.at[0] - half_w, text.at[1] - half_h, text.at[0] + half_w, text.at[1] + half_h)


def test_names_under_arrow_heads_are_drawn_again_over_the_orders() -> None:
    scene = _scene(pictures.movement())
    over = _names_over(scene)
    # The names the arrow heads, lines and units of Fall 1901 cross, among them the
    # ends of the moves to Ukraine, Galicia, Greece, the Ionian Sea, Armenia and the
    # convoying fleet's North Sea.
    assert {"ukr", "gal", "gre", "ion", "nth", "arm"} <= set(over)
    assert over == sorted(over)
    # Drawn after (over) every order's mark and every unit, before the title.
    kinds = [g.cls.split()[0] for g in scene.groups]
    first_over = kinds.index("name-over")
    assert "order" not in kinds[first_over:] and "unit" not in kinds[first_over:]
    assert set(kinds[first_over:]) <= {"name-over", "title", "legend", "legend-power",
                                       "legend-key"}  # fmt: skip
    # The same text, size and halo as the board's name.
    (gal,) = [g for g in scene.groups if g.cls == "name-over" and g.data == (("province", "gal"),)]
    assert gal.items == next(g.items for g in scene.board if g.data == (("province", "gal"),))


def test_the_opening_draws_no_name_twice() -> None:
    scene = draw(Position.initial(pictures.MAP), title="Game demo").scene
    assert _names_over(scene) == []
