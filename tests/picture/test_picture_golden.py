"""The standard map's pictures compared with reviewed golden images, by a tolerance (the
same size; at most 0.5% of the pixels differing by more than 48 in a channel), so that a
new Pillow's anti-aliasing does not fail them but a moved unit or arrow does.

The golden pictures are in tests/data/golden/picture/; after a deliberate change (or a
new geometry), ``UPDATE_GOLDEN=1 pytest tests/picture/test_picture_golden.py`` writes
them again, to be looked at before they are committed.
"""

from __future__ import annotations

import io

import pytest
from picturekit import check_golden, differing_share
from PIL import Image
from support import pictures

from judge.engine import Position, adjudicate
from judge.picture import draw


def test_opening_position() -> None:
    start = Position.initial(pictures.MAP)
    check_golden("s1901m.png", draw(start, title="Game demo", caption="Spring 1901").png())


def test_movement_results_with_every_kind_of_order() -> None:
    out = pictures.movement()
    picture = draw(out.before, out.results, out.position, title="Game demo",
                   caption="Fall 1901 movement results")  # fmt: skip
    check_golden("f1901m-results.png", picture.png())


def test_retreat_phase_as_it_stands() -> None:
    position = pictures.movement().position
    check_golden(
        "f1901r.png", draw(position, title="Game demo", caption="Fall 1901 retreats").png()
    )


def test_retreat_results() -> None:
    out = pictures.retreats()
    picture = draw(out.before, out.results, out.position, title="Game demo",
                   caption="Fall 1901 retreat results")  # fmt: skip
    check_golden("f1901r-results.png", picture.png())


def test_adjustment_results() -> None:
    out = pictures.adjustments()
    picture = draw(out.before, out.results, out.position, title="Game demo",
                   caption="Winter 1901 adjustment results")  # fmt: skip
    check_golden("w1901a-results.png", picture.png())


def test_the_comparison_sees_a_moved_unit() -> None:
    """The tolerance is tight enough: the opening with one army moved differs."""
    start = Position.initial(pictures.MAP)
    moved = adjudicate(start, {"France": ["A par-bur"]}).position
    a = Image.open(io.BytesIO(draw(start, title="Game demo", caption="Spring 1901").png()))
    b = Image.open(io.BytesIO(draw(moved, title="Game demo", caption="Spring 1901").png()))
    assert differing_share(a, b) > 0.0005
    assert differing_share(a, a) == 0.0


@pytest.mark.parametrize(
    "name",
    ["s1901m.png", "f1901m-results.png", "f1901r.png", "f1901r-results.png", "w1901a-results.png"],
)
def test_golden_pictures_are_small(name: str) -> None:
    from picturekit import GOLDEN

    assert (GOLDEN / name).stat().st_size < 200_000
