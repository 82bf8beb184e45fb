"""New game files from templates (``judge game new NAME [--from TEMPLATE]``).

A template is a documented game file: the judge's own (``config/templates/*.toml`` in a
checkout, ``judge/game_templates/`` in the installed package), or any game file named by
its path. The copy goes into the games folder ``judge serve`` watches, under the new
game's name, with its ``[game] name`` set to it; nothing else of the text changes (the
comments stay), except that a copy under another name than the template's own game
starts by hand (``start = "manual"``): the demo's roster and passwords are public, and a
game master edits the copy before the game begins.

The copy is written whole, under a hidden name first, then linked to its real name, so
that a judge watching the folder never reads half a file, and an existing file is never
replaced.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from judge.config import ConfigError, load_game_config, valid_game_name

__all__ = ["TEMPLATE_DIR", "NewGameFile", "new_game_file", "template_names"]

_PACKAGE = Path(__file__).resolve().parent.parent
#: The judge's game templates: inside the package when it is installed from a wheel (the
#: build maps the checkout's config/templates/ to judge/game_templates), else
#: config/templates/ of the checkout (installed editable).
TEMPLATE_DIR = (
    _PACKAGE / "game_templates"
    if (_PACKAGE / "game_templates").is_dir()
    else _PACKAGE.parent / "config" / "templates"
)

#: A key line of a TOML table: ``key = "value"`` and what follows the value (a comment).
#: Linear: each part is a run of one class of characters.
_NAME_LINE = re.compile(r'^(?P<head>\s*name\s*=\s*)"[^"\n]*"(?P<tail>[^\n]*)$')
_START_LINE = re.compile(r'^(?P<head>\s*start\s*=\s*)"[^"\n]*"(?P<tail>[^\n]*)$')
_TABLE_LINE = re.compile(r"^\s*\[(?P<table>[^\]\n]*)\]")


@dataclass(frozen=True)
class NewGameFile:
    """A game file written from a template: where, from what, and whether its copy was
    set to start by hand."""

    path: Path
    source: Path
    manual_start: bool


def template_names(directory: Path = TEMPLATE_DIR) -> list[str]:
    """The names of the judge's game templates (``demo`` ...), sorted."""
    return sorted(path.stem for path in directory.glob("*.toml"))


def _template_path(template: str, directory: Path) -> Path:
    """The file ``template`` names: one of the judge's templates by name, or a path."""
    if "/" in template or os.sep in template or template.endswith(".toml"):
        path = Path(template)
        if not path.is_file():
            raise ConfigError(f"--from {template}: no such file")
        return path
    path = directory / f"{template}.toml"
    if not valid_game_name(template) or not path.is_file():
        names = ", ".join(template_names(directory)) or "none"
        raise ConfigError(
            f"--from {template}: no template called {template!r} (templates: {names}); "
            "or give a game file's path, e.g. --from config/games/winter01.toml"
        )
    return path


def new_game_file(
    name: str, games_dir: Path, template: str = "demo", directory: Path = TEMPLATE_DIR
) -> NewGameFile:
    """Write ``games_dir/<name>.toml`` from ``template`` (a template's name or a game
    file's path), its game called ``name``; raise :class:`ConfigError` for a bad name,
    an unknown or bad template, or a game file that exists already (named)."""
    if not valid_game_name(name):
        raise ConfigError(
            f"{name!r} is not a game name: use 1 to 20 lowercase letters, digits, - or _, "
            'starting with a letter (e.g. "winter01")'
        )
    source = _template_path(template, directory)
    config = load_game_config(source)  # a bad template is named, with its key and fix
    target = games_dir / f"{name}.toml"
    if target.exists():
        raise ConfigError(f"{target} exists already: edit it, or choose another name")
    for other in sorted(games_dir.glob("*.toml")) if games_dir.is_dir() else []:
        if _game_name_in(other) == name:
            raise ConfigError(f"{other} is game {name} already: edit it, or choose another name")
    manual = name != config.name
    text = _rewritten(source, source.read_text(encoding="utf-8"), name, manual)
    games_dir.mkdir(parents=True, exist_ok=True)
    partial = games_dir / f".{name}.toml.new"
    partial.write_text(text, encoding="utf-8")
    try:
        os.link(partial, target)
    except FileExistsError:
        raise ConfigError(f"{target} exists already: edit it, or choose another name") from None
    finally:
        partial.unlink()
    return NewGameFile(target, source, manual)


def _game_name_in(path: Path) -> str | None:
    """The ``[game] name`` a game file gives, if it can be read."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    game = data.get("game")
    name = game.get("name") if isinstance(game, dict) else None
    return name if isinstance(name, str) else None


def _rewritten(source: Path, text: str, name: str, manual: bool) -> str:
    """``text`` with its ``[game]`` name set to ``name`` (and its start to "manual" when
    ``manual``), every other line as it was."""
    lines = text.splitlines(keepends=True)
    table = None
    named = started = False
    for number, line in enumerate(lines):
        header = _TABLE_LINE.match(line)
        if header is not None:
            table = header.group("table").strip()
            continue
        if table != "game":
            continue
        ending = line[len(line.rstrip("\r\n")) :]
        found = _NAME_LINE.match(line.rstrip("\r\n"))
        if found is not None and not named:
            lines[number] = f'{found.group("head")}"{name}"{found.group("tail")}{ending}'
            named = True
        found = _START_LINE.match(line.rstrip("\r\n"))
        if found is not None and manual and not started:
            lines[number] = f'{found.group("head")}"manual"{found.group("tail")}{ending}'
            started = True
    if not named:
        raise ConfigError(
            f'{source}: [game] name: write it on a line of its own (name = "...") so that '
            "a copy can be given its own name"
        )
    return "".join(lines)
