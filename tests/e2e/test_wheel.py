"""The installed package runs the judge (issue 12, item 7): the wheel built from this
checkout, installed (not editable) into a fresh virtual environment, answers ``--help``,
plays a game by injected mail and serves mail, from a directory that holds nothing of the
checkout.

The wheel is built as ``pip install .`` builds it (an isolated build, which fetches
setuptools and wheel from the package index) from a copy of the files the build reads, so
nothing is written into the checkout. The fresh environment gets the wheel alone
(``--no-deps``); its dependencies are those of the test environment, reached through a
``.pth`` file placed after its own site-packages (the test environment's own ``.pth``
files, among them the editable install's, are not read that way), so the judge that runs
is the installed one and the test needs no download of them. About 20 s, most of it the
build.
"""

from __future__ import annotations

import email
import email.policy
import os
import shutil
import signal
import smtplib
import subprocess
import sys
import sysconfig
import time
import tomllib
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

import pytest
from support import DATA, ROOT
from support.netutil import free_port
from support.servicekit import GAME_FILE

#: What the build reads: the package, the directories mapped into it, the project file.
SOURCES = ("judge", "templates", "migrations", "config/templates", "pyproject.toml", "README.md")
#: Packages the build maps in from the top of the checkout.
MAPPED = {
    "judge.templates", "judge.game_templates", "judge.migrations", "judge.migrations.versions",
}  # fmt: skip

ENGLAND_ORDERS = (
    b"From: england@example.org\nTo: judge@example.org\nSubject: orders\n"
    b"Message-ID: <wheel-1@players.example>\nContent-Type: text/plain\n\n"
    b"SIGNON Etest01 pw-eng\nF Lon-NTH\nF Edinburgh -> Norwegian Sea\nA Lvp-Yor\nSIGNOFF\n"
    b"Alice\n"
)


def test_pyproject_lists_every_package_under_judge() -> None:
    """The packages are listed in pyproject.toml (a list cannot be combined with
    setuptools' search, and the mapped directories need a list): a package added under
    judge/ must be added there too, or the wheel would lack it."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "judge").rglob("__init__.py")
    }
    assert listed == found | MAPPED


def run(
    command: list[str | Path], cwd: Path, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` in ``cwd`` without the test environment's PYTHONPATH; fail with its
    output when it fails."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the judge's wheel installed; its ``bin``."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    source.mkdir()
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(path, source / name)
    dist = base / "dist"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", dist, source], base)
    [wheel] = dist.glob("judge-*.whl")
    fresh = base / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", fresh], base)
    python = fresh / "bin" / "python"
    run(
        [sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps",
         "--no-index", wheel],
        base,
    )  # fmt: skip
    site = run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], base)
    Path(site.stdout.strip(), "test-dependencies.pth").write_text(
        sysconfig.get_path("purelib") + "\n" + sysconfig.get_path("platlib") + "\n"
    )
    return fresh / "bin"


def test_the_installed_judge_uses_its_own_templates_and_migrations(
    venv: Path, tmp_path: Path
) -> None:
    helped = run([venv / "judge", "--help"], tmp_path)
    assert helped.stdout.startswith("usage: judge [-h]")
    for command in ("serve", "inject", "game", "process", "outbox", "adjudicate", "datc"):
        assert command in helped.stdout
    where = run(
        [venv / "python", "-c",
         "import judge, judge.render, judge.db.session as s\n"
         "print(judge.__file__, judge.render.TEMPLATE_DIR, s.MIGRATIONS_DIR, sep='\\n')"],
        tmp_path,
    )  # fmt: skip
    package = Path(where.stdout.splitlines()[0]).parent
    assert package.is_relative_to(venv.parent) and package.name == "judge"
    assert where.stdout.splitlines()[1:] == [
        str(package / "templates"),
        str(package / "migrations"),
    ]
    assert (package / "engine" / "py.typed").is_file()
    assert (package / "templates" / "player" / "confirm.txt.j2").is_file()
    assert sorted(p.name for p in (package / "migrations" / "versions").glob("0*.py")) == sorted(
        p.name for p in (ROOT / "migrations" / "versions").glob("0*.py")
    )


def golden_block(step: str, to: str) -> tuple[str, str]:
    """The subject and body of the mail to ``to`` in the golden file of ``step``."""
    text = (DATA / "golden" / "e2e" / f"{step}.txt").read_text(encoding="utf-8")
    for block in text.split("=" * 78 + "\n"):
        head, _, body = block.lstrip("\n").partition("\n\n")
        if head.startswith(f"To: {to}\n"):
            return head.split("\nSubject: ", 1)[1], body
    raise AssertionError(f"no mail to {to} in {step}")


def maildir(folder: Path) -> list[tuple[str, str]]:
    """The subject and decoded text of each mail in the Maildir ``folder``, oldest first."""
    mails = []
    for path in sorted((folder / "new").iterdir()):
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        body = message.get_body(preferencelist=("plain",))
        assert body is not None
        mails.append((str(message["Subject"]), body.get_content()))
    return mails


def test_the_installed_judge_plays_a_game_by_injected_mail(venv: Path, tmp_path: Path) -> None:
    """From an empty directory: a game master's settings and game file, the game started,
    England's orders injected; the mails are those of the end-to-end golden files."""
    config = tmp_path / "config"
    config.mkdir()
    (config / "judge.toml").write_text(
        '[judge]\nname = "TESTJUDGE"\naddress = "judge@example.org"\n'
    )
    (config / "test01.toml").write_text(GAME_FILE)
    (tmp_path / "orders.eml").write_bytes(ENGLAND_ORDERS)
    judge: list[str | Path] = [venv / "judge", "--now"]
    loaded = run([*judge, "2026-11-23T12:00", "game", "load", "config/test01.toml"], tmp_path)
    assert loaded.stdout.splitlines()[0] == "created game test01"
    started = run([*judge, "2026-11-23T12:00", "game", "start", "test01"], tmp_path)
    assert started.stdout == "started test01: S1901M, deadline 2026-11-25 20:00 UTC\n"
    injected = run([*judge, "2026-11-23T13:00", "inject", "orders.eml"], tmp_path)
    assert injected.stdout == "message 1: done\n"
    assert maildir(tmp_path / "var" / "mail" / "england@example.org") == [
        golden_block("01_gamestart", "england@example.org"),
        golden_block("02_spring_orders", "england@example.org"),
    ]


def test_the_installed_judge_writes_the_demo_game_from_its_template(
    venv: Path, tmp_path: Path
) -> None:
    """``judge game new demo`` in a directory that holds nothing of the checkout: the demo
    template comes from the package, and the game file it writes loads."""
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "judge.toml").write_text('[judge]\naddress = "judge@example.org"\n')
    made = run([venv / "judge", "game", "new", "demo"], tmp_path)
    assert made.stdout.splitlines()[0].startswith("wrote config/games/demo.toml from ")
    written = tmp_path / "config" / "games" / "demo.toml"
    assert written.read_text() == (ROOT / "config" / "templates" / "demo.toml").read_text()
    loaded = run([venv / "judge", "--now", "2026-11-23T12:00", "game", "load", written], tmp_path)
    assert loaded.stdout.splitlines()[0] == "created game demo"


def wait_for(check: Callable[[], bool], seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_the_installed_judge_serves_mail(venv: Path, tmp_path: Path) -> None:
    """``judge serve`` from the installed package: the database made from its migrations,
    one mail received by SMTP and answered from its templates, a clean stop."""
    port = free_port()
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "judge.toml").write_text(
        f'[judge]\naddress = "judge@example.org"\n[inbound]\nport = {port}\n'
    )
    process = subprocess.Popen(
        [venv / "judge", "serve"],
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline() == (
            f"judge serve: receiving mail for judge@example.org by SMTP on 127.0.0.1:{port}; "
            f"replies go to {tmp_path / 'var' / 'mail'}\n"
        )
        with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
            smtp.sendmail(
                "someone@example.net",
                ["judge@example.org"],
                b"From: someone@example.net\r\nTo: judge@example.org\r\nSubject: hello\r\n"
                b"Message-ID: <wheel-2@example.net>\r\n\r\nLIST\r\n",
            )
        folder = tmp_path / "var" / "mail" / "someone@example.net" / "new"
        wait_for(lambda: folder.is_dir() and any(folder.iterdir()))
        assert maildir(folder.parent) == [
            ("Re: hello", "There are no games on this judge yet.\n\nJUDGE\n")
        ]
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
