"""The layers point one way: a test that reads every import under ``judge/`` (at the top of
a module, inside functions, under ``TYPE_CHECKING``) and fails on an arrow that runs the
wrong way.

It lives at the top of ``tests/`` because it belongs to no one layer: it reads them all
(in milliseconds, without importing any), so ``pytest tests/engine`` and the other layer
directories still run alone, and this runs with the whole suite.

:data:`LAYERS` is the one table of rules (the picture is docs/architecture.md's). Every
module of the package must belong to a row, so a new package is placed in the table
before it can be imported from anywhere.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from support import ROOT

#: Stands for every module of the standard library in an ``only`` set.
STDLIB = "<stdlib>"


@dataclass(frozen=True)
class Layer:
    """What the modules of one layer may import: ``only`` these (when given), and never
    these. Names match a module and its submodules."""

    only: frozenset[str] | None = None
    never: frozenset[str] = frozenset()


def _only(*names: str) -> Layer:
    return Layer(only=frozenset(names))


def _never(*names: str) -> Layer:
    return Layer(never=frozenset(names))


#: The rules, one row per layer; a module belongs to the row with the longest name that is
#: it or a package above it (``judge`` itself is the package's ``__init__`` only).
LAYERS: dict[str, Layer] = {
    # The root package is imported before any of its modules: it must stay empty.
    "judge": _only(STDLIB),
    # The rules of Diplomacy: a library anyone can use, like python-chess.
    "judge.engine": _only(STDLIB, "judge.engine"),
    # Add-ons beside the engine: pure functions over its values.
    "judge.datc": _only(STDLIB, "judge.engine", "judge.datc"),
    # The map picture (like chess.svg): engine values in, SVG and PNG (Pillow) out.
    "judge.picture": _only(STDLIB, "judge.engine", "judge.picture", "PIL"),
    # Settings as typed values, read by every layer (the mail clients too).
    "judge.config": _never(
        "judge.db", "judge.mail", "judge.services", "judge.commands", "judge.presenters",
        "judge.render", "judge.runtime", "judge.cli",
    ),
    # Bytes in and out: transports take plain values, never rows or the judge.
    "judge.mail": _never(
        "judge.services", "judge.db", "judge.runtime", "judge.cli", "judge.commands",
    ),
    # Models, queries, sessions.
    "judge.db": _never(
        "judge.services", "judge.runtime", "judge.mail", "judge.commands", "judge.cli",
    ),
    # Values into text: the same for mail and (later) the web.
    "judge.presenters": _never("judge.services", "judge.db", "judge.runtime", "judge.cli"),
    "judge.render": _never("judge.services", "judge.db", "judge.runtime", "judge.cli"),
    # The mail command language, called by the services' conversation.
    "judge.commands": _never("judge.runtime", "judge.cli"),
    # What the judge does; the long-running process and the entry points call it.
    "judge.services": _never("judge.runtime", "judge.cli"),
    # The long-running process at the edge.
    "judge.runtime": _never("judge.cli"),
    # Thin entry points: may import everything.
    "judge.cli": _never(),
}  # fmt: skip


def module_name(path: Path, package_root: Path) -> str:
    """The dotted name of the module at ``path`` (``package_root`` is the directory that
    holds the top-level package)."""
    parts = list(path.relative_to(package_root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_names(source: str, module: str, is_package: bool) -> set[str]:
    """Every module ``source`` (the module ``module``) imports, wherever the import is:
    ``from a.b import c`` counts as ``a.b`` and ``a.b.c`` (``c`` may be a submodule);
    relative imports are resolved."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                origin = ".".join([*base, node.module] if node.module else base)
            else:
                origin = node.module or ""
            names.add(origin)
            names.update(f"{origin}.{alias.name}" for alias in node.names if alias.name != "*")
    return names


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def layer_of(module: str) -> str | None:
    """The row of :data:`LAYERS` that ``module`` belongs to, or None."""
    if module == "judge":
        return "judge"
    rows = [row for row in LAYERS if row != "judge" and _within(module, row)]
    return max(rows, key=len, default=None)


def _allowed(name: str, only: frozenset[str]) -> bool:
    if STDLIB in only and name.split(".")[0] in sys.stdlib_module_names:
        return True
    return any(_within(name, allowed) for allowed in only if allowed != STDLIB)


def wrong_arrows(package_root: Path, package: str = "judge") -> list[str]:
    """Each import under ``package_root/package`` that breaks :data:`LAYERS`, as
    ``module -> imported (layer rule)``, and each module that belongs to no layer."""
    problems: list[str] = []
    for path in sorted((package_root / package).rglob("*.py")):
        module = module_name(path, package_root)
        row = layer_of(module)
        if row is None:
            problems.append(f"{module} belongs to no layer: add it to LAYERS")
            continue
        layer = LAYERS[row]
        source = path.read_text(encoding="utf-8")
        wrong: dict[str, str] = {}
        for name in sorted(imported_names(source, module, path.name == "__init__.py")):
            parent = name.rpartition(".")[0]
            if parent in wrong and parent != package:
                continue  # ``from judge.db.models import X``: judge.db.models says it
            if layer.only is not None and not _allowed(name, layer.only):
                wrong[name] = f"{row} imports only {sorted(layer.only)}"
            elif any(_within(name, never) for never in layer.never):
                wrong[name] = f"{row} never imports it"
        problems.extend(f"{module} -> {name} ({why})" for name, why in wrong.items())
    return problems


def test_every_arrow_points_the_right_way() -> None:
    assert wrong_arrows(ROOT) == []


def test_the_reader_finds_every_kind_of_wrong_arrow(tmp_path: Path) -> None:
    """The checker itself: a small package with one wrong arrow of each kind."""
    files = {
        "judge/__init__.py": '"""Root."""\n',
        "judge/engine/__init__.py": "from __future__ import annotations\nimport json\n",
        "judge/engine/board.py": (
            "from . import units\nfrom .units import Unit\n"
            "def late():\n    import sqlalchemy\n    from judge import mail\n"
        ),
        "judge/engine/units.py": "import typing\n",
        "judge/mail/compose.py": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from judge.db.models import OutboundMessage\n"
            "from ..services import outbox\n"
        ),
        "judge/services/outbox.py": (
            "from judge.mail.compose import x\nimport judge.runtime.sender\n"
        ),
        "judge/runtime/sender.py": "from judge.services import outbox\n",
        "judge/web.py": "from judge.engine import board\n",
    }
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert wrong_arrows(tmp_path) == [
        "judge.engine.board -> judge (judge.engine imports only ['<stdlib>', 'judge.engine'])",
        "judge.engine.board -> judge.mail (judge.engine imports only ['<stdlib>', 'judge.engine'])",
        "judge.engine.board -> sqlalchemy (judge.engine imports only ['<stdlib>', 'judge.engine'])",
        "judge.mail.compose -> judge.db.models (judge.mail never imports it)",
        "judge.mail.compose -> judge.services (judge.mail never imports it)",
        "judge.services.outbox -> judge.runtime.sender (judge.services never imports it)",
        "judge.web belongs to no layer: add it to LAYERS",
    ]


@pytest.mark.parametrize(
    ("module", "layer"),
    [
        ("judge", "judge"),
        ("judge.engine.board", "judge.engine"),
        ("judge.render", "judge.render"),
        ("judge.renderer", None),
        ("judge.presenters.results", "judge.presenters"),
        ("judge.cli", "judge.cli"),
        ("judge.web", None),
    ],
)
def test_a_module_belongs_to_the_longest_row_naming_it(module: str, layer: str | None) -> None:
    assert layer_of(module) == layer
