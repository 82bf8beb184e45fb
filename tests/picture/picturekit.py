"""A small hand-made map and its geometry for the picture's tests, and the comparison of
a picture with its reviewed golden PNG by a tolerance."""

from __future__ import annotations

import io
import os
from pathlib import Path

from PIL import Image, ImageChops

from judge.engine import Map
from judge.picture.geometry import Geometry, geometry_from_json

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "picture"

TINY = """\
variant Tiny
power   France   French   F  FRA
power   Germany  German   G  GER
coastcode nc NCS north coast | north, n
coastcode sc SCS south coast | south, s
province  aaa  coast       France   AAA  Alpha
province  bbb  coast       sc       BBB  Beta Land
province  ccc  sea         -        CCC  Gamma Sea
province  ddd  land        Germany  DDD  Delta
province  eee  impassable  -        EEE  Epsilon
province  fff  land        -        FFF  Phi
coasts    bbb  nc sc
army      aaa  bbb
army      bbb  aaa ddd fff
army      ddd  bbb fff
army      fff  bbb ddd
fleet     aaa  bbb/nc bbb/sc ccc
fleet     bbb/nc  aaa ccc
fleet     bbb/sc  aaa
fleet     ccc  aaa bbb/nc
unit      France   F  aaa
unit      Germany  A  ddd
"""

#: The tiny map on a 400 x 300 canvas: the sea along the top, four provinces below,
#: Epsilon (impassable) in a corner of the sea.
TINY_GEOMETRY = {
    "format": 1,
    "map": "tiny",
    "width": 400,
    "height": 300,
    "source": "drawn by hand for the tests",
    "provinces": {
        "ccc": {"rings": [[[0, 0], [330, 0], [330, 60], [400, 60], [400, 120], [0, 120]]],
                "label": [300, 40], "unit": [100, 60]},
        "aaa": {"rings": [[[0, 120], [130, 120], [130, 300], [0, 300]]],
                "label": [65, 170], "unit": [65, 230]},
        "bbb": {"rings": [[[130, 120], [270, 120], [270, 300], [130, 300]]],
                "label": [200, 200], "unit": [200, 250],
                "coasts": {"nc": {"line": [[130, 120], [270, 120]], "unit": [200, 145]},
                           "sc": {"line": [[130, 300], [200, 300]], "unit": [165, 280]}}},
        "ddd": {"rings": [[[270, 120], [400, 120], [400, 210], [270, 210]]],
                "label": [335, 140], "unit": [335, 180]},
        "eee": {"rings": [[[330, 0], [400, 0], [400, 60], [330, 60]]],
                "label": [365, 30], "unit": [365, 30]},
        "fff": {"rings": [[[270, 210], [400, 210], [400, 300], [270, 300]]],
                "label": [335, 230], "unit": [335, 270]},
    },
    "scenery": [[[180, 30], [220, 30], [220, 60], [180, 60]]],
}  # fmt: skip


def tiny_map() -> Map:
    """The tiny map."""
    return Map.from_text(TINY)


def tiny_geometry() -> Geometry:
    """The tiny map's geometry."""
    return geometry_from_json(TINY_GEOMETRY)


def differing_share(a: Image.Image, b: Image.Image, threshold: int = 48) -> float:
    """The share of pixels of two same-sized images that differ by more than
    ``threshold`` in some channel."""
    diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB"))
    worst = diff.convert("RGB").split()
    mask = None
    for band in worst:
        over = band.point(lambda v: 255 if v > threshold else 0)
        mask = over if mask is None else ImageChops.lighter(mask, over)
    assert mask is not None
    histogram = mask.histogram()
    return histogram[255] / (a.width * a.height)


#: The golden comparison looks at blocks of BLOCK x BLOCK pixels (each the mean of its
#: pixels), so that edges drawn a little otherwise (a new Pillow's anti-aliasing, a glyph
#: a pixel aside) average out while a unit, an arrow or a centre marker moved still
#: changes whole blocks: a moved army changes about 46 blocks, one order's mark left out
#: about 22, the opening blurred by 0.8 px none.
BLOCK = 4

#: How many blocks may differ by more than 48 in a channel (a digit of a caption).
BLOCKS_ALLOWED = 5


def differing_blocks(a: Image.Image, b: Image.Image, threshold: int = 48) -> int:
    """How many BLOCK x BLOCK blocks of two same-sized images differ, on average, by more
    than ``threshold`` in some channel."""
    small_a = a.convert("RGB").reduce(BLOCK)
    small_b = b.convert("RGB").reduce(BLOCK)
    return round(differing_share(small_a, small_b, threshold) * small_a.width * small_a.height)


def check_golden(name: str, png: bytes, allowed: int = BLOCKS_ALLOWED) -> None:
    """Compare ``png`` with the golden picture ``name`` (tests/data/golden/picture/):
    the same size, and at most ``allowed`` blocks of BLOCK x BLOCK pixels differing by
    more than 48 in a channel. ``UPDATE_GOLDEN=1`` writes the golden picture instead."""
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(png)
        return
    assert path.exists(), f"no golden picture {path}: run with UPDATE_GOLDEN=1"
    got = Image.open(io.BytesIO(png))
    want = Image.open(path)
    assert got.size == want.size, f"{name}: size {got.size}, golden {want.size}"
    blocks = differing_blocks(got, want)
    assert blocks <= allowed, (
        f"{name}: {blocks} blocks of {BLOCK}x{BLOCK} pixels differ (at most {allowed})"
    )
