"""``judge game new NAME [--from TEMPLATE]``: a game file written into the games folder
from the demo template (or any game file), as a game master runs it from the judge's
directory."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import ROOT

from judge.cli import main
from judge.config import load_game_config

TEMPLATE = ROOT / "config" / "templates" / "demo.toml"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A judge's directory with a settings file and no game yet, made current."""
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "judge.toml").write_text('[judge]\naddress = "judge@example.org"\n')
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_demo_is_written_as_the_template_says(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["game", "new", "demo"]) == 0
    written = home / "config" / "games" / "demo.toml"
    assert written.read_bytes() == TEMPLATE.read_bytes()
    assert capsys.readouterr().out == (
        f"wrote config/games/demo.toml from {TEMPLATE}\n"
        "  `judge serve` loads it, and each edit saved to it, by itself "
        "(or: `judge game load config/games/demo.toml`)\n"
    )
    config = load_game_config(written)
    assert config.name == "demo"
    assert config.settings.autostart is True
    assert len(config.players) == 7
    assert [p.name for p in (home / "config" / "games").iterdir()] == ["demo.toml"]


def test_a_game_under_another_name_gets_its_name_and_starts_by_hand(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["game", "new", "winter01"]) == 0
    written = home / "config" / "games" / "winter01.toml"
    changed = [
        (old, new)
        for old, new in zip(
            TEMPLATE.read_text().splitlines(), written.read_text().splitlines(), strict=True
        )
        if old != new
    ]
    assert changed == [
        ('name = "demo"', 'name = "winter01"'),
        (
            'start = "auto"            # "auto": as soon as the file names all seven '
            'players; "manual":',
            'start = "manual"            # "auto": as soon as the file names all seven '
            'players; "manual":',
        ),
    ]
    assert capsys.readouterr().out == (
        f"wrote config/games/winter01.toml from {TEMPLATE}\n"
        '  it starts by hand (start = "manual"): edit its players, master and passwords, '
        "then `judge game start winter01`\n"
        "  `judge serve` loads it, and each edit saved to it, by itself "
        "(or: `judge game load config/games/winter01.toml`)\n"
    )
    config = load_game_config(written)
    assert (config.name, config.settings.autostart) == ("winter01", False)


def test_a_game_file_is_a_template_too(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["game", "new", "winter01"]) == 0
    assert main(["game", "new", "winter02", "--from", "config/games/winter01.toml"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[3] == "wrote config/games/winter02.toml from config/games/winter01.toml"
    games = home / "config" / "games"
    assert (games / "winter02.toml").read_text() == (games / "winter01.toml").read_text().replace(
        'name = "winter01"', 'name = "winter02"'
    )


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            ["Winter"],
            "judge game new: 'Winter' is not a game name: use 1 to 20 lowercase letters, "
            'digits, - or _, starting with a letter (e.g. "winter01")\n',
        ),
        (
            ["demo\n"],
            "judge game new: 'demo\\n' is not a game name: use 1 to 20 lowercase letters, "
            'digits, - or _, starting with a letter (e.g. "winter01")\n',
        ),
        (
            ["winter01", "--from", "classic"],
            "judge game new: --from classic: no template called 'classic' (templates: demo); "
            "or give a game file's path, e.g. --from config/games/winter01.toml\n",
        ),
        (
            ["winter01", "--from", "missing.toml"],
            "judge game new: --from missing.toml: no such file\n",
        ),
    ],
)
def test_a_bad_name_or_template_is_refused_by_name(
    home: Path, capsys: pytest.CaptureFixture[str], args: list[str], error: str
) -> None:
    assert main(["game", "new", *args]) == 2
    assert capsys.readouterr().err == error
    assert not (home / "config" / "games").exists()


def test_an_existing_game_file_is_never_replaced(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = home / "config" / "games"
    games.mkdir()
    (games / "demo.toml").write_text("# the game master's own\n")
    (games / "old.toml").write_text('[game]\nname = "winter01"\n')
    assert main(["game", "new", "demo"]) == 2
    assert main(["game", "new", "winter01"]) == 2
    assert capsys.readouterr().err == (
        f"judge game new: {games / 'demo.toml'} exists already: edit it, or choose another "
        "name\n"
        f"judge game new: {games / 'old.toml'} is game winter01 already: edit it, or choose "
        "another name\n"
    )
    assert (games / "demo.toml").read_text() == "# the game master's own\n"
    assert sorted(p.name for p in games.iterdir()) == ["demo.toml", "old.toml"]


def test_a_bad_template_file_is_named(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (home / "mine.toml").write_text('[game]\nname = "winter01"\nrules = "1971"\n')
    assert main(["game", "new", "winter02", "--from", "mine.toml"]) == 2
    assert capsys.readouterr().err.startswith("judge game new: mine.toml: [game] rules: ")


def test_without_a_settings_file_the_games_folder_is_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["game", "new", "demo"]) == 2
    assert capsys.readouterr().err == (
        "judge game new: there is no settings file config/judge.toml to say where the games "
        "folder is; run it from the judge's directory, or name the file with --config\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_the_checkout_keeps_game_files_out_of_git() -> None:
    """A game master's files in config/games/ are ignored; the template is not there."""
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert "config/games/*.toml" in ignored
    assert sorted(p.name for p in (ROOT / "config" / "templates").iterdir()) == ["demo.toml"]
