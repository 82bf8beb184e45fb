#!/usr/bin/env python3
"""Make ``judge/engine/maps/standard.geometry.json`` from Natural Earth land (see README.md).

Usage::

    python tools/geometry/make_geometry.py /tmp/package/land-50m.json \\
        judge/engine/maps/standard.geometry.json [--preview preview.png]

The steps: project Natural Earth 1:50m land (TopoJSON, public domain) onto the canvas;
rasterise it to a grid of cells; apply the strait fix-ups of ``seeds.py``; give every land
cell to its nearest land seed and every water cell to its nearest sea seed (distances
measured within land or within water, so a province never jumps a strait); trace the
boundary between cells of different owners into chains, smooth and simplify each chain
once (so neighbours share exactly the same border), and assemble each province's rings
from its chains; place labels and units where the province is widest.  Standard library
and Pillow only; the same input gives the same output byte for byte.
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import json
import math
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from PIL import Image, ImageDraw

sys.path.insert(0, str(Path(__file__).resolve().parent))
import seeds

WIDTH = 1200
HEIGHT = 950
CELL = 2  # pixels per grid cell
GW, GH = WIDTH // CELL, HEIGHT // CELL
# The projection: x from longitude and y from latitude, each piecewise linear through
# these knots (degrees, pixels).  The middle of the board (Britain to the Balkans) gets
# more pixels per degree than the Atlantic, the Urals, the Sahara and the Arctic, as on
# a printed board; 19.3 px per degree of longitude against 24 of latitude there is about
# the shape of lands at 45 degrees north.
LON_KNOTS: tuple[tuple[float, float], ...] = (
    (-26.0, 0.0),
    (-12.0, 140.0),
    (36.0, 1068.0),
    (47.0, 1200.0),
)
LAT_KNOTS: tuple[tuple[float, float], ...] = (
    (72.6, 0.0),
    (66.0, 106.0),
    (34.0, 876.0),
    (29.4, 950.0),
)
MIN_ISLAND = 24  # cells: smaller islands are left to the sea
OUT = -1  # the label of "outside the canvas"
SCENERY = -2  # the label of land that is no province
UNSET = -3

Pt = tuple[float, float]
Vertex = tuple[int, int]


def project(lon: float, lat: float) -> Pt:
    """Canvas pixels of a longitude and latitude (see LON_KNOTS, LAT_KNOTS)."""
    return (_through(LON_KNOTS, lon), _through(LAT_KNOTS, lat))


def _through(knots: tuple[tuple[float, float], ...], value: float) -> float:
    """Piecewise-linear interpolation through ``knots``, extended beyond the ends."""
    pairs = list(itertools.pairwise(knots))
    inside = [p for p in pairs if min(p[0][0], p[1][0]) <= value <= max(p[0][0], p[1][0])]
    if inside:
        (a0, p0), (a1, p1) = inside[0]
    else:  # beyond the ends: the nearer end's segment, extended
        before = (value - knots[0][0]) * (knots[1][0] - knots[0][0]) < 0
        (a0, p0), (a1, p1) = pairs[0] if before else pairs[-1]
    return p0 + (value - a0) * (p1 - p0) / (a1 - a0)


# -- Natural Earth --------------------------------------------------------------------------


def read_topojson_land(path: Path) -> list[list[list[Pt]]]:
    """The land polygons of a TopoJSON file as lists of rings of (lon, lat); the first
    ring of each polygon is its outline, the others its holes."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    scale = doc["transform"]["scale"]
    translate = doc["transform"]["translate"]
    arcs: list[list[Pt]] = []
    for arc in doc["arcs"]:
        x = y = 0
        points: list[Pt] = []
        for dx, dy in arc:  # delta-encoded, quantised
            x += dx
            y += dy
            points.append((x * scale[0] + translate[0], y * scale[1] + translate[1]))
        arcs.append(points)

    def ring(indices: list[int]) -> list[Pt]:
        out: list[Pt] = []
        for index in indices:
            points = arcs[index] if index >= 0 else arcs[~index][::-1]
            out.extend(points if not out else points[1:])
        # Eurasia's ring runs across the antimeridian (Chukotka): keep it continuous, or
        # its jump from +180 to -180 would sweep a band across the canvas.
        shift = 0.0
        for k in range(1, len(out)):
            lon = out[k][0] + shift
            if lon - out[k - 1][0] > 180:
                shift -= 360
            elif lon - out[k - 1][0] < -180:
                shift += 360
            out[k] = (out[k][0] + shift, out[k][1])
        middle = sorted(lon for lon, _ in out)[len(out) // 2]
        whole = -360.0 * round(middle / 360)  # put the bulk of the ring back on -180..180
        return [(lon + whole, lat) for lon, lat in out]

    polygons: list[list[list[Pt]]] = []
    for geometry in doc["objects"]["land"]["geometries"]:
        if geometry["type"] == "Polygon":
            polygons.append([ring(r) for r in geometry["arcs"]])
        elif geometry["type"] == "MultiPolygon":
            polygons.extend([ring(r) for r in poly] for poly in geometry["arcs"])
    return polygons


# -- the grid -------------------------------------------------------------------------------


def cells_of_stroke(text: str) -> Iterator[tuple[int, int]]:
    """Grid cells along every stroke of a seed string ("lon,lat lon,lat; lon,lat")."""
    for stroke in text.split(";"):
        points = [project(*map(float, p.split(","))) for p in stroke.split()]
        if len(points) == 1:
            points = points * 2
        for (x0, y0), (x1, y1) in itertools.pairwise(points):
            steps = max(1, int(math.hypot(x1 - x0, y1 - y0) / (CELL / 2)))
            for i in range(steps + 1):
                t = i / steps
                cx = int((x0 + (x1 - x0) * t) / CELL)
                cy = int((y0 + (y1 - y0) * t) / CELL)
                if 0 <= cx < GW and 0 <= cy < GH:
                    yield cx, cy


def land_grid(polygons: list[list[list[Pt]]]) -> list[bytearray]:
    """1 for land, 0 for water, per cell, after the fix-ups; tiny islands and enclosed
    water dropped (to the sea and to the land respectively)."""
    image = Image.new("L", (GW, GH), 0)
    draw = ImageDraw.Draw(image)
    for polygon in polygons:
        for i, ring in enumerate(polygon):
            xy = [(x / CELL, y / CELL) for x, y in (project(lon, lat) for lon, lat in ring)]
            if len(xy) >= 3:
                draw.polygon(xy, fill=0 if i else 1)
    data = image.tobytes()
    grid = [bytearray(data[y * GW : (y + 1) * GW]) for y in range(GH)]
    for what, _name, stroke, half in seeds.FIXES:
        value = 1 if what == "land" else 0
        r = math.ceil(half)
        for cx, cy in cells_of_stroke(stroke):
            for dy in range(-r, r + 1):
                for dx in range(-r, r + 1):
                    x, y = cx + dx, cy + dy
                    if 0 <= x < GW and 0 <= y < GH and dx * dx + dy * dy <= half * half + 0.5:
                        grid[y][x] = value
    # Small land components become water; water not reached from a sea seed becomes land.
    for comp in components(grid, 1):
        if len(comp) < MIN_ISLAND:
            for x, y in comp:
                grid[y][x] = 0
    sea_seed_cells = {c for text in seeds.SEA.values() for c in cells_of_stroke(text)}
    for comp in components(grid, 0):
        if not sea_seed_cells.intersection(comp):
            for x, y in comp:
                grid[y][x] = 1
    return grid


def components(grid: list[bytearray], value: int) -> list[list[tuple[int, int]]]:
    """The 4-connected components of the cells holding ``value``."""
    seen = [bytearray(GW) for _ in range(GH)]
    out: list[list[tuple[int, int]]] = []
    for y0 in range(GH):
        for x0 in range(GW):
            if grid[y0][x0] != value or seen[y0][x0]:
                continue
            seen[y0][x0] = 1
            stack = [(x0, y0)]
            comp: list[tuple[int, int]] = []
            while stack:
                x, y = stack.pop()
                comp.append((x, y))
                for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                    if 0 <= nx < GW and 0 <= ny < GH and not seen[ny][nx] and grid[ny][nx] == value:
                        seen[ny][nx] = 1
                        stack.append((nx, ny))
            out.append(comp)
    return out


def grow(
    grid: list[bytearray],
    medium: int,
    sources: dict[int, list[tuple[int, int]]],
    labels: list[list[int]],
    names: Sequence[str],
) -> list[str]:
    """Give each cell of ``medium`` to its nearest source (chamfer distance within the
    medium, 8 neighbours); returns warnings for seeds that fall outside the medium."""
    off: dict[str, int] = {}
    dist = [[math.inf] * GW for _ in range(GH)]
    heap: list[tuple[float, int, int, int]] = []
    for label, cells in sorted(sources.items()):
        for x, y in cells:
            if grid[y][x] != medium:
                # a stroke may cross a bay or a neck of land: those cells are skipped
                name = names[label] if label >= 0 else "scenery"
                off[name] = off.get(name, 0) + 1
                continue
            if dist[y][x] > 0:
                dist[y][x] = 0
                labels[y][x] = label
                heap.append((0.0, y, x, label))
    heapq.heapify(heap)
    steps = (
        (1, 0, 1.0),
        (-1, 0, 1.0),
        (0, 1, 1.0),
        (0, -1, 1.0),
        (1, 1, 1.4142),
        (1, -1, 1.4142),
        (-1, 1, 1.4142),
        (-1, -1, 1.4142),
    )
    while heap:
        d, y, x, label = heapq.heappop(heap)
        if d > dist[y][x] or labels[y][x] != label:
            continue
        for dx, dy, cost in steps:
            nx, ny = x + dx, y + dy
            if 0 <= nx < GW and 0 <= ny < GH and grid[ny][nx] == medium:
                # water moves diagonally only where it is not a land pinch
                if dx and dy and medium == 0 and grid[y][nx] != 0 and grid[ny][x] != 0:
                    continue
                nd = d + cost
                if nd < dist[ny][nx]:
                    dist[ny][nx] = nd
                    labels[ny][nx] = label
                    heapq.heappush(heap, (nd, ny, nx, label))
    return [f"seeds: {n} cells of {name} off its medium" for name, n in sorted(off.items())]


# -- tracing --------------------------------------------------------------------------------


def label_at(labels: list[list[int]], x: int, y: int) -> int:
    """The label of a cell; OUT beyond the canvas."""
    return labels[y][x] if 0 <= x < GW and 0 <= y < GH else OUT


def edge_labels(labels: list[list[int]], a: Vertex, b: Vertex) -> tuple[int, int]:
    """(label on the right, label on the left) walking the unit grid edge a -> b (screen
    coordinates, y down: walking east, the right hand points south)."""
    (x0, y0), (x1, y1) = a, b
    if y0 == y1:
        x = min(x0, x1)
        below, above = label_at(labels, x, y0), label_at(labels, x, y0 - 1)
        return (below, above) if x1 > x0 else (above, below)
    y = min(y0, y1)
    west, east = label_at(labels, x0 - 1, y), label_at(labels, x0, y)
    return (west, east) if y1 > y0 else (east, west)


def boundary_graph(labels: list[list[int]]) -> dict[Vertex, list[Vertex]]:
    """Grid vertices and their neighbours along edges between cells of different labels."""
    graph: dict[Vertex, list[Vertex]] = {}

    def add(a: Vertex, b: Vertex) -> None:
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, []).append(a)

    for y in range(GH + 1):
        for x in range(GW):
            if label_at(labels, x, y) != label_at(labels, x, y - 1):
                add((x, y), (x + 1, y))
    for y in range(GH):
        for x in range(GW + 1):
            if label_at(labels, x, y) != label_at(labels, x - 1, y):
                add((x, y), (x, y + 1))
    for v in graph:
        graph[v].sort()
    return graph


Chain = list[Vertex]


def chains_of(graph: dict[Vertex, list[Vertex]]) -> list[Chain]:
    """Split the boundary graph into chains between junctions (vertices of three or more
    edges, and the canvas corners); a closed loop with no junction is one chain."""
    corners = {(0, 0), (GW, 0), (0, GH), (GW, GH)}
    junction = {v for v, n in graph.items() if len(n) != 2 or v in corners}
    used: set[tuple[Vertex, Vertex]] = set()
    chains: list[Chain] = []

    def walk(start: Vertex, nxt: Vertex) -> Chain:
        chain = [start]
        prev, cur = start, nxt
        used.add((prev, cur))
        used.add((cur, prev))
        while True:
            chain.append(cur)
            if cur in junction or cur == start:
                return chain
            a, b = graph[cur]
            step = b if a == prev else a
            prev, cur = cur, step
            used.add((prev, cur))
            used.add((cur, prev))

    for v in sorted(junction):
        for n in graph[v]:
            if (v, n) not in used:
                chains.append(walk(v, n))
    for v in sorted(graph):
        for n in graph[v]:
            if (v, n) not in used:
                chains.append(walk(v, n))
    return chains


def chaikin(points: list[Pt], closed: bool, rounds: int = 2) -> list[Pt]:
    """Corner cutting; the ends of an open chain stay where they are."""
    for _ in range(rounds):
        if len(points) < 3:
            return points
        out: list[Pt] = [] if closed else [points[0]]
        pairs = list(zip(points, points[1:] + points[:1], strict=True))
        if not closed:
            pairs = pairs[:-1]
        for i, ((x0, y0), (x1, y1)) in enumerate(pairs):
            q = (0.75 * x0 + 0.25 * x1, 0.75 * y0 + 0.25 * y1)
            r = (0.25 * x0 + 0.75 * x1, 0.25 * y0 + 0.75 * y1)
            if not closed and i == 0:
                out.append(r)
            elif not closed and i == len(pairs) - 1:
                out.append(q)
            else:
                out.extend((q, r))
        if not closed:
            out.append(points[-1])
        points = out
    return points


def douglas_peucker(points: list[Pt], tolerance: float) -> list[Pt]:
    """Drop points closer than ``tolerance`` to the line of their neighbours kept."""
    if len(points) < 3:
        return points
    keep = [False] * len(points)
    keep[0] = keep[-1] = True
    stack = [(0, len(points) - 1)]
    while stack:
        i, j = stack.pop()
        (x0, y0), (x1, y1) = points[i], points[j]
        dx, dy = x1 - x0, y1 - y0
        length = math.hypot(dx, dy)
        best, best_k = -1.0, -1
        for k in range(i + 1, j):
            px, py = points[k]
            if length == 0:
                d = math.hypot(px - x0, py - y0)
            else:
                d = abs(dy * (px - x0) - dx * (py - y0)) / length
            if d > best:
                best, best_k = d, k
        if best > tolerance:
            keep[best_k] = True
            stack.extend(((i, best_k), (best_k, j)))
    return [p for p, k in zip(points, keep, strict=True) if k]


def smooth(chain: Chain) -> list[Pt]:
    """Pixel points of a chain, smoothed and simplified (ends fixed; a loop closed)."""
    pts: list[Pt] = [(x * CELL, y * CELL) for x, y in chain]
    on_edge = all(x in (0, WIDTH) for x, _ in pts) or all(y in (0, HEIGHT) for _, y in pts)
    if on_edge:
        return [pts[0], pts[-1]]
    # The cells' staircase is first straightened (a coarse simplification), then the
    # corners are cut, then the points the cutting added are thinned out again.
    if chain[0] == chain[-1]:
        # split a loop at its first point and its farthest point so that both halves
        # keep their shape under simplification
        far = max(range(len(pts)), key=lambda k: math.dist(pts[0], pts[k]))
        halves = [pts[: far + 1], pts[far:]]
        ring = [*douglas_peucker(halves[0], 1.2), *douglas_peucker(halves[1], 1.2)[1:-1]]
        ring = chaikin(ring, closed=True)
        far = max(range(len(ring)), key=lambda k: math.dist(ring[0], ring[k]))
        first = douglas_peucker(ring[: far + 1], 0.35)
        second = douglas_peucker([*ring[far:], ring[0]], 0.35)
        return first + second[1:]
    return douglas_peucker(chaikin(douglas_peucker(pts, 1.2), closed=False), 0.35)


Piece = tuple[Vertex, Vertex, Vertex, Vertex, list[Pt]]  # start, end, first, last step


def assemble(
    chains: list[Chain], labels: list[list[int]], smoothed: list[list[Pt]]
) -> dict[int, list[list[Pt]]]:
    """Each label's outer rings (clockwise on screen), built from its chains; holes are
    dropped (an island in a sea is drawn by its own land over the sea)."""
    pieces: dict[int, list[Piece]] = {}
    for index, chain in enumerate(chains):
        right, left = edge_labels(labels, chain[0], chain[1])
        pts = smoothed[index]
        for label, vs, points in ((right, chain, pts), (left, chain[::-1], pts[::-1])):
            if label == OUT:
                continue
            first = (vs[1][0] - vs[0][0], vs[1][1] - vs[0][1])
            last = (vs[-1][0] - vs[-2][0], vs[-1][1] - vs[-2][1])
            pieces.setdefault(label, []).append((vs[0], vs[-1], first, last, points))
    rings: dict[int, list[list[Pt]]] = {}
    for label in sorted(pieces):
        pending = sorted(pieces[label], key=lambda p: (p[0], p[2]))
        out: list[list[Pt]] = []
        while pending:
            head = pending.pop(0)
            ring = list(head[4])
            end, last = head[1], head[3]
            while True:
                options = [p for p in pending if p[0] == end]
                close_rank = _turn_rank(last, head[2]) if end == head[0] else 9
                best = min(options, key=lambda p: _turn_rank(last, p[2]), default=None)
                if best is None or _turn_rank(last, best[2]) >= close_rank:
                    if end != head[0]:
                        raise RuntimeError(f"a ring of label {label} does not close at {end}")
                    break
                pending.remove(best)
                ring.extend(best[4][1:])
                end, last = best[1], best[3]
            if ring[0] == ring[-1]:
                ring.pop()
            if len(ring) >= 3 and _area(ring) > 0:
                out.append(ring)
        rings[label] = out
    return rings


def _turn_rank(incoming: Vertex, outgoing: Vertex) -> int:
    """0 for a right turn (on screen, y down), 1 straight on, 2 left, 3 back."""
    cross = incoming[0] * outgoing[1] - incoming[1] * outgoing[0]
    dot = incoming[0] * outgoing[0] + incoming[1] * outgoing[1]
    if cross > 0:
        return 0
    if cross == 0 and dot > 0:
        return 1
    if cross < 0:
        return 2
    return 3


def _area(ring: Sequence[Pt]) -> float:
    """Signed area, positive for clockwise on screen (y down)."""
    total = 0.0
    for (x0, y0), (x1, y1) in zip(ring, [*ring[1:], ring[0]], strict=True):
        total += x0 * y1 - x1 * y0
    return total / 2


# -- labels, units and coasts ---------------------------------------------------------------


def distance_to_border(labels: list[list[int]]) -> list[list[float]]:
    """Per cell, the chamfer distance in cells to the nearest cell of another label (or
    the canvas edge)."""
    inf = float(GW + GH)
    d = [[inf] * GW for _ in range(GH)]
    for y in range(GH):
        for x in range(GW):
            lab = labels[y][x]
            for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if label_at(labels, nx, ny) != lab:
                    d[y][x] = 0.5
                    break
    forward = ((-1, 0, 1.0), (0, -1, 1.0), (-1, -1, 1.4142), (1, -1, 1.4142))
    backward = ((1, 0, 1.0), (0, 1, 1.0), (1, 1, 1.4142), (-1, 1, 1.4142))
    for passes, ys, xs in (
        (forward, range(GH), range(GW)),
        (backward, range(GH - 1, -1, -1), range(GW - 1, -1, -1)),
    ):
        for y in ys:
            row = d[y]
            for x in xs:
                best = row[x]
                for dx, dy, cost in passes:
                    nx, ny = x + dx, y + dy
                    if 0 <= nx < GW and 0 <= ny < GH and labels[ny][nx] == labels[y][x]:
                        cand = d[ny][nx] + cost
                        if cand < best:
                            best = cand
                row[x] = best
    return d


def main_piece(
    labels: list[list[int]], label: int, start: tuple[int, int]
) -> list[tuple[int, int]]:
    """The cells of ``label`` 4-connected to ``start`` (the province's first seed)."""
    seen = {start}
    stack = [start]
    while stack:
        x, y = stack.pop()
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if (nx, ny) not in seen and label_at(labels, nx, ny) == label:
                seen.add((nx, ny))
                stack.append((nx, ny))
    return sorted(seen)


def centre(cell: tuple[int, int]) -> Pt:
    """The pixel centre of a cell."""
    return ((cell[0] + 0.5) * CELL, (cell[1] + 0.5) * CELL)


def place_label_and_unit(cells: list[tuple[int, int]], dist: list[list[float]]) -> tuple[Pt, Pt]:
    """A label point and a unit point, both far from the border and apart from each other
    (a unit is about 26 px wide, a three-letter label about 24 by 12)."""
    ranked = sorted(cells, key=lambda c: (-dist[c[1]][c[0]], c[1], c[0]))[:400]
    best: tuple[float, float] = (-1.0, 0.0)
    pair = (ranked[0], ranked[0])
    for i, a in enumerate(ranked):
        da = min(dist[a[1]][a[0]] * CELL, 16.0)
        if da * 1.0 < best[0]:
            break
        for b in ranked[i + 1 :]:
            db = min(dist[b[1]][b[0]] * CELL, 16.0)
            if db < best[0]:
                break
            ax, ay = centre(a)
            bx, by = centre(b)
            # apart enough: a label box beside or above a unit disc
            if abs(ax - bx) < 26 and abs(ay - by) < 20:
                continue
            score = (min(da, db), -math.hypot(ax - bx, ay - by))
            if score > best:
                best, pair = score, (a, b)
    a, b = pair
    label, unit = (a, b) if (a[1], a[0]) <= (b[1], b[0]) else (b, a)
    return centre(label), centre(unit)


def coast_lines(
    province: int,
    coasts: dict[str, set[int]],
    chains: list[Chain],
    labels: list[list[int]],
    smoothed: list[list[Pt]],
    anchors: dict[str, set[int]],
) -> dict[str, list[Pt]]:
    """For each coast code, the stretch of the province's shore on that coast's seas.  A
    sea on two coasts (Spain's Atlantic) gives each coast the pieces nearest its own
    other neighbours."""
    pieces: list[tuple[int, list[Pt]]] = []  # (sea label, points with the province on the right)
    for index, chain in enumerate(chains):
        right, left = edge_labels(labels, chain[0], chain[1])
        if right == province:
            pieces.append((left, smoothed[index]))
        elif left == province:
            pieces.append((right, smoothed[index][::-1]))
    mine: dict[str, list[list[Pt]]] = {code: [] for code in coasts}
    for sea, points in pieces:
        owners = [code for code, seas in coasts.items() if sea in seas]
        if len(owners) == 1:
            mine[owners[0]].append(points)
        elif owners:
            mid = halfway(points)

            def nearness(code: str, mid: Pt = mid) -> float:
                near = [
                    math.dist(mid, q)
                    for other, pts in pieces
                    if other in anchors[code]
                    for q in pts
                ]
                return min(near, default=math.inf)

            mine[min(owners, key=nearness)].append(points)
    return {code: join_longest(parts) for code, parts in mine.items()}


def join_longest(parts: list[list[Pt]]) -> list[Pt]:
    """Join pieces end to start where they meet; the longest run."""
    runs = [list(p) for p in parts]
    if not runs:
        return []
    merged = True
    while merged:
        merged = False
        for a in runs:
            for b in runs:
                if a is not b and a[-1] == b[0]:
                    a.extend(b[1:])
                    runs.remove(b)
                    merged = True
                    break
            if merged:
                break
    return max(runs, key=lambda r: sum(math.dist(p, q) for p, q in itertools.pairwise(r)))


def halfway(line: list[Pt]) -> Pt:
    """The point halfway along a polyline."""
    lengths = [math.dist(p, q) for p, q in itertools.pairwise(line)]
    left = sum(lengths) / 2
    for (p, q), step in zip(itertools.pairwise(line), lengths, strict=True):
        if step >= left and step > 0:
            t = left / step
            return (p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t)
        left -= step
    return line[-1]


#: How far a coast's fleet point keeps from the province's army point, so that a fleet
#: on that coast is seen to be there and not in the middle of the province.
COAST_APART = 24.0


def coast_hint(province: str, code: str) -> Pt | None:
    """The point given in seeds.COAST_NEAR for a coast's fleet, on the canvas."""
    given = seeds.COAST_NEAR.get(f"{province}/{code}")
    if given is None:
        return None
    lon, lat = (float(v) for v in given.split(","))
    return project(lon, lat)


def coast_unit(
    line: list[Pt],
    cells: list[tuple[int, int]],
    dist: list[list[float]],
    label: Pt,
    unit: Pt,
    near: Pt | None = None,
) -> Pt:
    """A fleet's place for a coast: inside the province, near the middle of that shore
    (or near the ``near`` point given for it in seeds.COAST_NEAR), off the label and
    apart from the army point ``unit``."""
    if not line:
        return label
    mid = near if near is not None else halfway(line)
    best: tuple[float, float] = (-math.inf, 0.0)
    spot = cells[0]
    for c in cells:
        p = centre(c)
        gap = math.dist(p, mid)
        if gap > 45 or (abs(p[0] - label[0]) < 26 and abs(p[1] - label[1]) < 20):
            continue
        if math.dist(p, unit) < COAST_APART:
            continue
        score = (min(dist[c[1]][c[0]] * CELL, 12.0) - gap * 0.3, -gap)
        if score > best:
            best, spot = score, c
    return centre(spot)


# -- the whole -------------------------------------------------------------------------------


def grid_contacts(labels: list[list[int]]) -> dict[tuple[int, int], int]:
    """Shared border length in cell edges for each pair of labels."""
    out: dict[tuple[int, int], int] = {}
    for y in range(GH):
        for x in range(GW):
            a = labels[y][x]
            for b in (label_at(labels, x + 1, y), label_at(labels, x, y + 1)):
                if b != a and a >= 0 and b >= 0:
                    key = (min(a, b), max(a, b))
                    out[key] = out.get(key, 0) + 1
    return out


def rounded(points: Sequence[Pt]) -> list[list[float]]:
    """Points as JSON lists, to 0.1 px."""
    return [[round(x, 1), round(y, 1)] for x, y in points]


def build(land_path: Path, preview: Path | None) -> tuple[dict[str, object], list[str]]:
    """The geometry document and a list of diagnostics."""
    from judge.engine.board import standard_map
    from judge.picture.geometry import adjacent_pairs

    game_map = standard_map()
    grid = land_grid(read_topojson_land(land_path))
    names = sorted(seeds.LAND) + sorted(seeds.SEA)
    names.remove("-")
    index = {name: i for i, name in enumerate(names)}
    index["-"] = SCENERY
    labels = [[UNSET] * GW for _ in range(GH)]
    notes: list[str] = []
    land_sources = {index[k]: list(cells_of_stroke(v)) for k, v in seeds.LAND.items()}
    sea_sources = {index[k]: list(cells_of_stroke(v)) for k, v in seeds.SEA.items()}
    notes += grow(grid, 1, land_sources, labels, names)
    notes += grow(grid, 0, sea_sources, labels, names)
    for y in range(GH):
        for x in range(GW):
            if labels[y][x] == UNSET:
                labels[y][x] = SCENERY  # land no seed reached: an island of scenery
    # diagnostics against the map file
    contacts = grid_contacts(labels)
    adjacent = adjacent_pairs(game_map)
    for a, b in sorted(adjacent):
        if contacts.get((min(index[a], index[b]), max(index[a], index[b])), 0) < 3:
            notes.append(f"grid: {a} and {b} are adjacent but do not touch")
    for (i, j), n in sorted(contacts.items()):
        a, b = sorted((names[i], names[j]))
        if (a, b) not in adjacent and "swi" not in (a, b) and n >= 2:
            notes.append(f"grid: {a} and {b} share {n * CELL} px of border but are not adjacent")

    graph = boundary_graph(labels)
    chains = chains_of(graph)
    smoothed = [smooth(c) for c in chains]
    rings = assemble(chains, labels, smoothed)
    dist = distance_to_border(labels)

    provinces: dict[str, object] = {}
    for name in sorted(game_map.provinces):
        i = index[name]
        strokes = seeds.LAND.get(name) or seeds.SEA[name]
        first = next(cells_of_stroke(strokes))
        cells = main_piece(labels, i, first)
        label, unit = place_label_and_unit(cells, dist)
        if name == "swi":
            unit = label
        entry: dict[str, object] = {
            "rings": [rounded(r) for r in rings.get(i, [])],
            "label": rounded([label])[0],
            "unit": rounded([unit])[0],
        }
        if name in game_map.coasts:
            coast_seas: dict[str, set[int]] = {}
            anchors: dict[str, set[int]] = {}
            for loc in game_map.coasts[name]:
                code = loc.split("/", 1)[1]
                near = {game_map.province_of(d) for d in game_map.fleet_adj[loc]}
                coast_seas[code] = {index[p] for p in near if game_map.is_sea(p)}
                anchors[code] = {index[p] for p in near}
            # a coast's anchors: the neighbours no other coast of the province has
            anchors = {
                code: near - set().union(*(v for k, v in anchors.items() if k != code))
                for code, near in anchors.items()
            }
            lines = coast_lines(i, coast_seas, chains, labels, smoothed, anchors)
            entry["coasts"] = {
                code: {
                    "line": rounded(line),
                    "unit": rounded(
                        [coast_unit(line, cells, dist, label, unit, coast_hint(name, code))]
                    )[0],
                }
                for code, line in sorted(lines.items())
            }
        provinces[name] = entry
    doc: dict[str, object] = {
        "format": 1,
        "map": "standard",
        "width": WIDTH,
        "height": HEIGHT,
        "source": (
            "Coastlines: Natural Earth 1:50m land (public domain), via world-atlas 2.0.2; "
            "province borders, seeds and strait fix-ups: this project's own "
            "(tools/geometry/make_geometry.py)"
        ),
        "provinces": provinces,
        "scenery": [rounded(r) for r in rings.get(SCENERY, [])],
    }
    if preview is not None:
        draw_preview(doc, preview)
    return doc, notes


def draw_preview(doc: dict[str, object], path: Path) -> None:
    """A quick look at the result: provinces filled, labels and unit dots drawn."""
    from judge.engine.board import standard_map

    game_map = standard_map()
    image = Image.new("RGB", (WIDTH, HEIGHT), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    provinces = doc["provinces"]
    assert isinstance(provinces, dict)
    scenery = doc["scenery"]
    assert isinstance(scenery, list)
    for sea in (True, False):
        for n, (name, entry) in enumerate(sorted(provinces.items())):
            if game_map.is_sea(name) != sea:
                continue
            shade = (n * 37) % 60
            fill = (
                (150 + shade, 190 + shade // 2, 235)
                if sea
                else (215 + shade // 2, 200 + shade // 2, 150 + shade)
            )
            if name == "swi":
                fill = (160, 160, 160)
            for ring in entry["rings"]:
                draw.polygon([tuple(p) for p in ring], fill=fill)
        if sea:
            for ring in scenery:
                draw.polygon([tuple(p) for p in ring], fill=(190, 190, 170))
    for entry in provinces.values():
        for ring in entry["rings"]:
            draw.line([tuple(p) for p in [*ring, ring[0]]], fill=(60, 60, 60))
    for name, entry in sorted(provinces.items()):
        lx, ly = entry["label"]
        ux, uy = entry["unit"]
        draw.ellipse((ux - 4, uy - 4, ux + 4, uy + 4), fill=(200, 0, 0))
        draw.text((lx, ly), name, fill=(0, 0, 0), anchor="mm")
        for code, coast in entry.get("coasts", {}).items():
            draw.line([tuple(p) for p in coast["line"]], fill=(0, 120, 0), width=3)
            cx, cy = coast["unit"]
            draw.ellipse((cx - 4, cy - 4, cx + 4, cy + 4), fill=(0, 120, 0))
            draw.text((cx, cy - 9), code, fill=(0, 90, 0), anchor="mm")
    image.save(path)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: read the Natural Earth file, write the geometry JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("land", type=Path, help="Natural Earth land-50m.json (world-atlas)")
    parser.add_argument("out", type=Path, help="the geometry JSON to write")
    parser.add_argument("--preview", type=Path, help="also draw a PNG to look at")
    args = parser.parse_args(argv)
    doc, notes = build(args.land, args.preview)
    for note in notes:
        print(note, file=sys.stderr)
    text = json.dumps(doc, separators=(",", ":"), sort_keys=True)
    args.out.write_text(text + "\n", encoding="utf-8")
    print(f"wrote {args.out} ({len(text)} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
