"""The map picture: a phase of a game drawn as SVG and PNG, an add-on beside the engine.

Like ``chess.svg`` for python-chess, it takes engine values (a position, the results of
its phase) and returns a picture; it imports the engine, the engine never imports it.
The province shapes come from the map's geometry file (:mod:`judge.picture.geometry`);
the SVG is written with the standard library and the PNG is rasterised with Pillow.

>>> from judge.engine.board import standard_map
>>> from judge.engine.position import Position
>>> picture = draw(Position.initial(standard_map()), title="demo", caption="Spring 1901")
>>> picture.svg().startswith("<svg")
True
>>> picture.png()[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from judge.picture.drawing import Picture, draw
from judge.picture.geometry import Geometry, GeometryError, load_geometry

__all__ = ["Geometry", "GeometryError", "Picture", "draw", "load_geometry"]
