"""The map geometry: the shipped standard file fits the map; each kind of misfit is found."""

from __future__ import annotations

import copy
import importlib.util
import json
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from judge.engine.board import Map, standard_map
from judge.picture import GeometryError, load_geometry
from judge.picture.geometry import check_geometry, geometry_from_json, shared_borders

# A three-province map: two coastal provinces side by side above one sea; bbb has two
# coasts, each on the sea.
TRIO = """\
variant Trio
power     Utopia  Utopian  U  UTO
coastcode nc NCS north coast | north, n
coastcode sc SCS south coast | south, s
province  aaa  coast  Utopia  AAA  Alpha
province  bbb  coast  sc      BBB  Beta
province  ccc  sea    -       CCC  Gamma Sea
coasts    bbb  nc sc
army      aaa  bbb
army      bbb  aaa
fleet     aaa  bbb/nc ccc
fleet     bbb/nc  aaa ccc
fleet     bbb/sc  ccc
fleet     ccc  aaa bbb/nc bbb/sc
unit      Utopia  A  aaa
"""

# The same provinces where aaa and bbb are not neighbours (only the sea joins them).
TRIO_APART = TRIO.replace("army      aaa  bbb\narmy      bbb  aaa\n", "").replace(
    "fleet     aaa  bbb/nc ccc\nfleet     bbb/nc  aaa ccc",
    "fleet     aaa  ccc\nfleet     bbb/nc  ccc",
)


def trio_doc() -> dict[str, Any]:
    """A geometry of TRIO on a 300 x 200 canvas: aaa and bbb on top, ccc below."""
    return {
        "format": 1,
        "map": "trio",
        "width": 300,
        "height": 200,
        "source": "drawn by hand for a test",
        "provinces": {
            "aaa": {
                "rings": [[[0, 0], [150, 0], [150, 100], [0, 100]]],
                "label": [50, 40],
                "unit": [100, 70],
            },
            "bbb": {
                "rings": [[[150, 0], [300, 0], [300, 100], [150, 100]]],
                "label": [200, 40],
                "unit": [250, 70],
                "coasts": {
                    "nc": {"line": [[150, 100], [220, 100]], "unit": [180, 85]},
                    "sc": {"line": [[230, 100], [300, 100]], "unit": [270, 85]},
                },
            },
            "ccc": {
                "rings": [[[0, 100], [300, 100], [300, 200], [0, 200]]],
                "label": [150, 140],
                "unit": [150, 175],
            },
        },
        "scenery": [[[10, 150], [30, 150], [30, 170]]],
    }


def problems(doc: dict[str, Any], text: str = TRIO) -> list[str]:
    return check_geometry(geometry_from_json(doc), Map.from_text(text))


def test_the_standard_geometry_fits_the_standard_map() -> None:
    game_map = standard_map()
    geometry = load_geometry(game_map)
    assert check_geometry(geometry, game_map) == []
    assert set(geometry.provinces) == set(game_map.provinces)
    assert {p: set(r.coasts) for p, r in geometry.provinces.items() if r.coasts} == {
        "bul": {"ec", "sc"},
        "spa": {"nc", "sc"},
        "stp": {"nc", "sc"},
    }
    assert (geometry.width, geometry.height) == (1200, 950)
    assert geometry.scenery  # Ireland, Sardinia, Corsica... are drawn


def test_the_standard_geometry_file_is_small() -> None:
    text = (
        resources.files("judge.engine")
        .joinpath("maps", "standard.geometry.json")
        .read_text(encoding="utf-8")
    )
    assert len(text.encode()) < 300_000


def test_standard_straits_and_bridges_match_the_map() -> None:
    """The fix-ups hold: the borders the game turns on are there, the others are not."""
    shared = shared_borders(load_geometry(standard_map()))

    def border(a: str, b: str) -> float:
        return shared.get((min(a, b), max(a, b)), 0.0)

    for a, b in [("mao", "wes"), ("den", "swe"), ("bla", "con"), ("aeg", "con"),
                 ("bal", "kie"), ("hel", "kie"), ("bar", "stp"), ("bot", "stp")]:  # fmt: skip
        assert border(a, b) >= 5, (a, b)
    for a, b in [("naf", "spa"), ("bal", "ska"), ("aeg", "bla"), ("rom", "wes"),
                 ("tus", "wes"), ("bal", "hel"), ("fin", "bar")]:  # fmt: skip
        assert border(a, b) < 5, (a, b)


def test_a_fitting_hand_made_geometry_has_no_problems() -> None:
    assert problems(trio_doc()) == []
    assert shared_borders(geometry_from_json(trio_doc())) == {
        ("aaa", "bbb"): 100.0,
        ("aaa", "ccc"): 150.0,
        ("bbb", "ccc"): 150.0,
    }


def test_a_province_without_a_shape_is_named() -> None:
    doc = trio_doc()
    del doc["provinces"]["ccc"]
    assert problems(doc) == ["ccc (Gamma Sea) has no shape in the geometry"]


def test_a_province_the_map_lacks_is_named() -> None:
    doc = trio_doc()
    doc["provinces"]["zzz"] = copy.deepcopy(doc["provinces"]["ccc"])
    doc["provinces"]["zzz"]["rings"] = [[[0, 200], [10, 200], [10, 190]]]
    doc["provinces"]["zzz"]["label"] = doc["provinces"]["zzz"]["unit"] = [7, 197]
    assert problems(doc) == ["the geometry has a province 'zzz' that the map lacks"]


def test_an_entry_without_rings_is_named() -> None:
    doc = trio_doc()
    doc["provinces"]["aaa"]["rings"] = []
    assert problems(doc) == [
        "aaa (Alpha) has an entry but no rings",
        "aaa and bbb are adjacent on the map but their shapes do not touch"
        " (common border 0.0 px, at least 5 needed)",
        "aaa and ccc are adjacent on the map but their shapes do not touch"
        " (common border 0.0 px, at least 5 needed)",
    ]


def test_label_unit_and_fleet_points_outside_their_province_are_named() -> None:
    doc = trio_doc()
    doc["provinces"]["aaa"]["label"] = [200, 40]  # in bbb
    doc["provinces"]["ccc"]["unit"] = [100, 70]  # in aaa
    doc["provinces"]["bbb"]["coasts"]["sc"]["unit"] = [270, 120]  # in the sea
    assert problems(doc) == [
        "the label point (200, 40) of aaa (Alpha) is not inside it",
        "the fleet point (270, 120) of bbb/sc is not inside bbb (Beta)",
        "the unit point (100, 70) of ccc (Gamma Sea) is not inside it",
    ]


def test_missing_and_extra_coasts_are_named() -> None:
    doc = trio_doc()
    coasts = doc["provinces"]["bbb"]["coasts"]
    coasts["ec"] = coasts.pop("sc")
    doc["provinces"]["aaa"]["coasts"] = {"nc": {"line": [[0, 100]], "unit": [50, 90]}}
    assert problems(doc) == [
        "aaa (Alpha) has a coast 'nc' in the geometry that the map lacks",
        "bbb/sc has no coast line and fleet point in the geometry",
        "bbb (Beta) has a coast 'ec' in the geometry that the map lacks",
    ]


def test_a_coast_line_of_one_point_is_named() -> None:
    doc = trio_doc()
    doc["provinces"]["bbb"]["coasts"]["nc"]["line"] = [[150, 100]]
    assert problems(doc) == ["the coast line of bbb/nc has fewer than two points"]


def test_adjacent_provinces_that_do_not_touch_are_named() -> None:
    doc = trio_doc()
    # bbb shrinks away from aaa: a gap of 10 px between them
    doc["provinces"]["bbb"]["rings"] = [[[160, 0], [300, 0], [300, 100], [160, 100]]]
    doc["provinces"]["bbb"]["coasts"]["nc"]["line"] = [[160, 100], [220, 100]]
    assert problems(doc) == [
        "aaa and bbb are adjacent on the map but their shapes do not touch"
        " (common border 0.0 px, at least 5 needed)"
    ]


def test_a_border_between_provinces_that_are_not_adjacent_is_named() -> None:
    assert problems(trio_doc(), TRIO_APART) == [
        "aaa and bbb share 100 px of border but are not adjacent on the map"
    ]


def test_a_corner_contact_is_not_a_border() -> None:
    doc = trio_doc()
    # aaa and bbb meet at one point only, each a triangle over the sea
    doc["provinces"]["aaa"]["rings"] = [[[0, 0], [150, 100], [0, 100]]]
    doc["provinces"]["aaa"]["label"] = [30, 80]
    doc["provinces"]["aaa"]["unit"] = [60, 90]
    doc["provinces"]["bbb"]["rings"] = [[[300, 0], [300, 100], [150, 100]]]
    doc["provinces"]["bbb"]["label"] = [270, 80]
    doc["provinces"]["bbb"]["unit"] = [240, 90]
    doc["provinces"]["bbb"]["coasts"]["nc"]["unit"] = [200, 95]
    doc["provinces"]["bbb"]["coasts"]["sc"]["unit"] = [280, 95]
    assert problems(doc, TRIO_APART) == []
    assert problems(doc) == [
        "aaa and bbb are adjacent on the map but their shapes do not touch"
        " (common border 0.0 px, at least 5 needed)"
    ]


def test_points_off_the_canvas_are_named() -> None:
    doc = trio_doc()
    doc["provinces"]["ccc"]["rings"][0][2] = [300, 201]
    doc["scenery"][0][0] = [-1, 150]
    assert problems(doc) == [
        "a point (300, 201) of province ccc lies off the 300 x 200 canvas",
        "a point (-1, 150) of the scenery lies off the 300 x 200 canvas",
    ]


def test_load_geometry_of_a_map_without_a_file_names_the_map() -> None:
    with pytest.raises(GeometryError) as caught:
        load_geometry(Map.from_text(TRIO))
    assert str(caught.value) == "the map 'trio' has no geometry file, so no picture"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format=2), "not a geometry file of format 1"),
        (lambda d: d.update(provinces=[]), "'provinces' must be an object"),
        (lambda d: d.update(width="wide"), "'width' and 'height' must be numbers"),
        (
            lambda d: d["provinces"].update(aaa=[]),
            "provinces.aaa: expected an object",
        ),
        (
            lambda d: d["provinces"]["aaa"].update(label=[1]),
            "provinces.aaa.label: a point is [x, y], got '[1]'",
        ),
        (
            lambda d: d["provinces"]["aaa"].update(unit=[1, True]),
            "provinces.aaa.unit: a point is [x, y], got '[1, True]'",
        ),
        (
            lambda d: d["provinces"]["ccc"].update(rings=[[[0, 0], [1, 1]]]),
            "provinces.ccc.rings[0]: a ring needs three points at least",
        ),
        (
            lambda d: d["provinces"]["ccc"]["rings"][0].__setitem__(1, "x"),
            "provinces.ccc.rings[0][1]: a point is [x, y], got 'x'",
        ),
        (
            lambda d: d["provinces"]["bbb"].update(coasts=[]),
            "provinces.bbb.coasts: expected an object",
        ),
        (
            lambda d: d["provinces"]["bbb"]["coasts"]["nc"].pop("line"),
            "provinces.bbb.coasts.nc.line: expected a list of points",
        ),
        (
            lambda d: d.update(scenery={}),
            "scenery: expected a list of rings",
        ),
    ],
)
def test_malformed_geometry_names_the_place(change: Any, message: str) -> None:
    doc = json.loads(json.dumps(trio_doc()))
    change(doc)
    with pytest.raises(GeometryError) as caught:
        geometry_from_json(doc)
    assert str(caught.value) == message


def generator() -> ModuleType:
    """tools/geometry/make_geometry.py, which is a script rather than a package module."""
    path = Path(__file__).resolve().parents[2] / "tools" / "geometry" / "make_geometry.py"
    spec = importlib.util.spec_from_file_location("make_geometry", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generator_decodes_topojson_arcs_reversed_and_across_the_antimeridian(
    tmp_path: Path,
) -> None:
    # arc 0 runs east across 180 degrees; arc 1, read backwards (~1), comes back west
    topology = {
        "type": "Topology",
        "transform": {"scale": [1, 1], "translate": [0, 0]},
        "arcs": [
            [[170, 10], [10, 0], [-355, 0]],
            [[170, 10], [0, 10], [-345, 0], [0, -10]],
        ],
        "objects": {
            "land": {"type": "GeometryCollection", "geometries": [
                {"type": "Polygon", "arcs": [[0, -2]]},
            ]},
        },
    }  # fmt: skip
    path = tmp_path / "land.json"
    path.write_text(json.dumps(topology), encoding="utf-8")
    assert generator().read_topojson_land(path) == [
        [[(170, 10), (180, 10), (185, 10), (185, 20), (170, 20), (170, 10)]]
    ]


def test_the_generator_smooths_a_shared_border_once_with_its_ends_fixed() -> None:
    make = generator()
    stairs = [(0, 0), (1, 0), (1, 1), (2, 1), (2, 2), (3, 2), (3, 3), (4, 3), (4, 4)]
    smooth = make.smooth(stairs)
    cell = make.CELL
    # the ends (junctions shared with other borders) stay; the staircase of cells turns
    # into few points, none farther from the diagonal than the staircase's corners
    assert smooth[0] == (0, 0) and smooth[-1] == (4 * cell, 4 * cell)
    assert len(smooth) == 3
    assert all(abs(x - y) / 2**0.5 <= cell / 2**0.5 for x, y in smooth)
