"""The judge's settings file (config/judge.toml): defaults and the errors it can give."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import ROOT

from judge.cli import main
from judge.config import ConfigError, load_settings


def settings_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config" / "judge.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


def test_gather_seconds_defaults_and_bounds(tmp_path: Path) -> None:
    assert load_settings(settings_file(tmp_path, "[judge]\n")).gather_seconds == 0.05
    assert (
        load_settings(settings_file(tmp_path, "[judge]\ngather_seconds = 0\n")).gather_seconds == 0
    )
    assert (
        load_settings(settings_file(tmp_path, "[judge]\ngather_seconds = 2\n")).gather_seconds == 2
    )
    for bad in ("9", "-0.1", '"soon"', "true"):
        path = settings_file(tmp_path, f"[judge]\ngather_seconds = {bad}\n")
        with pytest.raises(ConfigError) as err:
            load_settings(path)
        value = {"9": "9", "-0.1": "-0.1", '"soon"': "'soon'", "true": "True"}[bad]
        assert str(err.value) == (
            f"{path}: [judge] gather_seconds: expected a number of seconds from 0 to 5, got {value}"
        )


def test_an_unknown_key_is_named_with_the_known_ones(tmp_path: Path) -> None:
    path = settings_file(tmp_path, "[judge]\ngather = 1\n")
    with pytest.raises(ConfigError) as err:
        load_settings(path)
    assert str(err.value).startswith(f"{path}: [judge] gather: unknown key; known keys: [")
    assert "'gather_seconds'" in str(err.value)


def test_the_compose_settings_point_at_the_compose_services() -> None:
    """docker-compose.yml cannot run here (no Docker engine): check at least that the
    judge's settings for it load and name the services the file defines."""
    root = ROOT
    compose = (root / "docker-compose.yml").read_text()
    settings = load_settings(root / "config" / "compose" / "judge.toml")
    for service in ("db", "mail", "judge"):
        assert f"\n  {service}:\n" in compose
    assert "judge --config config/compose/judge.toml serve" in compose
    assert settings.url == "postgresql+psycopg://judge:judge@db:5432/judge"
    assert "POSTGRES_USER: judge" in compose and "POSTGRES_PASSWORD: judge" in compose
    assert settings.imap is not None and settings.smtp is not None
    assert (settings.imap.host, settings.imap.port) == ("mail", 3143)
    assert (settings.smtp.host, settings.smtp.port) == ("mail", 3025)
    assert '"3143:3143"' in compose and '"3025:3025"' in compose
    users = f"-Dgreenmail.users={settings.imap.username}:{settings.imap.password}@judge.local"
    assert users in compose
    assert settings.address == "judge@judge.local"


def test_a_wrong_settings_file_is_an_error_message_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = settings_file(tmp_path, "[judge]\nbogus = 1\n")
    assert main(["--config", str(path), "outbox"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"judge outbox: {path}: [judge] bogus: unknown key; known keys: [")


def test_a_database_that_cannot_be_opened_is_named_without_its_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = settings_file(
        tmp_path,
        '[judge]\ndatabase_url = "postgresql+psycopg://judge:sekrit@127.0.0.1:1/judge"\n'
        f'var_dir = "{tmp_path / "var"}"\n',
    )
    for command in (["serve"], ["outbox"]):
        assert main(["--config", str(path), *command]) == 2
        err = capsys.readouterr().err
        assert err.startswith(
            f"judge {command[0]}: cannot open the database "
            f"postgresql+psycopg://judge:***@127.0.0.1:1/judge ({path}: [judge] database_url): "
            'connection failed: connection to server at "127.0.0.1", port 1 failed'
        ), err
        assert "sekrit" not in err
