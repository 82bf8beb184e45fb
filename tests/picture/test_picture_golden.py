"""The standard map's pictures compared with reviewed golden images, by a tolerance (the
same size; at most 5 blocks of 4 x 4 pixels differing by more than 48 in a channel, see
picturekit.check_golden), so that a new Pillow's anti-aliasing does not fail them but a
moved unit or a missing arrow does.

The golden pictures are in tests/data/golden/picture/; after a deliberate change (or a
new geometry), ``UPDATE_GOLDEN=1 pytest tests/picture/test_picture_golden.py`` writes
them again, to be looked at before they are committed.
"""

from __future__ import annotations

import io

import pytest
from picturekit import GOLDEN, check_golden, differing_share
from PIL import Image, ImageFilter
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


def test_the_comparison_fails_a_moved_unit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tolerance is tight enough: the opening with one army moved is not the opening."""
    monkeypatch.delenv("UPDATE_GOLDEN", raising=False)  # never written over the golden
    start = Position.initial(pictures.MAP)
    moved = adjudicate(start, {"France": ["A par-bur"]}).position
    with pytest.raises(AssertionError, match=r"s1901m\.png: \d+ blocks"):
        check_golden("s1901m.png", draw(moved, title="Game demo", caption="Spring 1901").png())


def test_the_comparison_fails_a_missing_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """One order's mark left out of the busy results picture is seen."""
    monkeypatch.delenv("UPDATE_GOLDEN", raising=False)
    out = pictures.movement()
    picture = draw(out.before, out.results[1:], out.position, title="Game demo",
                   caption="Fall 1901 movement results")  # fmt: skip
    with pytest.raises(AssertionError, match=r"f1901m-results\.png: \d+ blocks"):
        check_golden("f1901m-results.png", picture.png())


def test_the_comparison_forgives_softer_edges(monkeypatch: pytest.MonkeyPatch) -> None:
    """Anti-aliasing drawn otherwise (the golden blurred a little: 1.4% of its pixels move
    by more than 48) is not a change of the picture."""
    monkeypatch.delenv("UPDATE_GOLDEN", raising=False)
    golden = Image.open(GOLDEN / "s1901m.png").convert("RGB")
    softer = golden.filter(ImageFilter.GaussianBlur(0.8))
    assert differing_share(golden, softer) > 0.01
    buffer = io.BytesIO()
    softer.save(buffer, format="PNG")
    check_golden("s1901m.png", buffer.getvalue())


@pytest.mark.parametrize(
    "name",
    ["s1901m.png", "f1901m-results.png", "f1901r.png", "f1901r-results.png", "w1901a-results.png"],
)
def test_golden_pictures_are_small(name: str) -> None:
    assert (GOLDEN / name).stat().st_size < 200_000
