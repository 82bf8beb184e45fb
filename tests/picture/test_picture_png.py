"""The PNG: a valid image of the scene's size, the same bytes for the same scene, small;
and the dashes it draws as the SVG does."""

from __future__ import annotations

import io

from picturekit import tiny_geometry, tiny_map
from PIL import Image

from judge.engine import Position, adjudicate
from judge.picture.drawing import draw_with
from judge.picture.png import dashes


def test_png_is_valid_deterministic_and_of_the_scene_size() -> None:
    start = Position.initial(tiny_map())
    out = adjudicate(start, {"France": ["F aaa-bbb/nc"], "Germany": ["A ddd-bbb"]})
    picture = draw_with(
        tiny_geometry(), start, out.results, out.position, title="Game\x00 tiny", caption="S"
    )
    png = picture.png()
    image = Image.open(io.BytesIO(png))
    image.verify()
    assert image.format == "PNG"
    assert image.size == (picture.width, picture.height) == (1200, 46 + 900 + 74)
    assert picture.png() == png
    assert len(png) < 200_000


def test_png_shows_the_power_colours() -> None:
    start = Position.initial(tiny_map())
    picture = draw_with(tiny_geometry(), start, title="T")
    image = Image.open(io.BytesIO(picture.png())).convert("RGB")
    # The French fleet's hull at Alpha's unit point (65, 230) is France's sky blue.
    x, y = 65 * 3, 46 + 230 * 3
    # (The palette of the PNG keeps each colour within a step or two.)
    pixel = image.getpixel((x - 9, y - 3))
    assert isinstance(pixel, tuple)
    assert all(abs(a - b) <= 3 for a, b in zip(pixel, (0x56, 0xB4, 0xE9), strict=True))


def test_dashes_split_a_polyline_across_its_corners() -> None:
    assert dashes(((0, 0), (10, 0), (10, 10)), (14, 2)) == [
        ((0, 0), (10, 0), (10.0, 4.0)),
        ((10.0, 6.0), (10, 10)),
    ]
    assert dashes(((0, 0), (10, 0), (10, 10)), (6, 4)) == [
        ((0, 0), (6.0, 0.0)),
        ((10.0, 0.0), (10.0, 6.0)),
    ]
    assert dashes(((0, 0), (3, 4)), ()) == [((0, 0), (3, 4))]


def test_pictures_drawn_in_threads_are_the_same() -> None:
    """The board is kept between pictures (one tuple per map, drawn once), and threads
    drawing at once share it safely."""
    from concurrent.futures import ThreadPoolExecutor

    from picturekit import TINY_GEOMETRY

    from judge.picture.geometry import geometry_from_json

    geometry = geometry_from_json(TINY_GEOMETRY)  # a new geometry: nothing kept yet
    start = Position.initial(tiny_map())
    first = draw_with(geometry, start, title="T")
    assert draw_with(geometry, start, title="U").scene.board is first.scene.board
    with ThreadPoolExecutor(4) as pool:
        pngs = list(pool.map(lambda _: draw_with(geometry, start, title="T").png(), range(8)))
    assert set(pngs) == {first.png()}
