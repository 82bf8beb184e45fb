"""``judge game load/start``, ``judge inject``, ``judge process`` and ``judge outbox`` as a
game master runs them, against a SQLite file and the local Maildirs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support import ROOT
from support.servicekit import GAME_FILE


def judge(
    config: Path, *args: str, now: str = "2026-11-23T12:00:00"
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judge.cli", "--config", str(config), "--now", now, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


def test_a_game_master_runs_a_game_from_the_command_line(tmp_path: Path) -> None:
    config = tmp_path / "config" / "judge.toml"
    config.parent.mkdir()
    var = tmp_path / "var"
    config.write_text(
        f'[judge]\nname = "CLIJUDGE"\naddress = "judge@example.org"\nvar_dir = "{var}"\n'
    )
    game_file = tmp_path / "config" / "test01.toml"
    game_file.write_text(GAME_FILE)

    loaded = judge(config, "game", "load", str(game_file))
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.splitlines()[0] == "created game test01"
    started = judge(config, "game", "start", "test01")
    assert started.stdout.strip() == "started test01: S1901M, deadline 2026-11-25 20:00 UTC"
    again = judge(config, "game", "start", "test01")
    assert again.returncode == 2 and "already started" in again.stderr

    eml = tmp_path / "orders.eml"
    eml.write_bytes(
        b"From: england@example.org\nTo: judge@example.org\nSubject: spring\n"
        b"Message-ID: <cli-1@example.org>\n\nSIGNON Etest01 pw-eng\nF Lon-NTH\n"
    )
    injected = judge(config, "inject", str(eml), now="2026-11-23T13:00:00")
    assert injected.stdout.strip() == "message 1: done"
    replay = judge(config, "inject", str(eml), now="2026-11-23T13:01:00")
    assert replay.stdout.splitlines()[0] == "already received <cli-1@example.org> (state done)"

    england = tmp_path / "var" / "mail" / "england@example.org" / "new"
    bodies = [p.read_text() for p in sorted(england.iterdir())]
    assert len(bodies) == 2  # game start and the one confirmation (the replay sent nothing)
    assert any("England: Fleet London -> North Sea." in b for b in bodies)

    processed = judge(config, "process", "test01", "--phase", "S1901M", now="2026-11-25T20:00:00")
    assert processed.stdout.strip() == "test01: processed S1901M, now F1901M"
    twice = judge(config, "process", "test01", "--phase", "S1901M", now="2026-11-25T20:01:00")
    assert twice.stdout.strip() == "test01: nothing to process"

    outbox = judge(config, "outbox")
    assert outbox.stdout.splitlines()[-1] == "17 messages, 0 queued"

    bad = tmp_path / "config" / "bad.toml"
    bad.write_text('[game]\nname = "Bad Name"\n')
    refused = judge(config, "game", "load", str(bad))
    assert refused.returncode == 2
    assert f"{bad}: [game] name: expected 1 to 20 lowercase letters" in refused.stderr
