"""The hostile-input suite: mail built to stall, wedge or fool the judge (issue 11).

Each hostile message is stored and processed through the real service layer in a child
process with a memory cap (``RLIMIT_AS``) and a time bound; after them, an ordinary
message must still be answered.  A message that is too slow or too greedy fails its case
here instead of taking the judge down.
"""

from __future__ import annotations

import multiprocessing
import resource
import time
from email.message import EmailMessage
from pathlib import Path

import pytest
from support.servicekit import Table, started_game

from judge.config import JudgeSettings
from judge.runtime.bootstrap import open_app

_MEMORY = 1 << 30  # 1 GiB of address space for the child
_SECONDS = 5.0
_WHEN = "2026-11-23 13:00"


def _mail(body: str, sender: str = "england@example.org", subject: str = "orders") -> bytes:
    mail = EmailMessage()
    mail["From"] = sender
    mail["To"] = "judge@example.org"
    mail["Subject"] = subject
    mail.set_content(body)
    return mail.as_bytes()


def _nested(depth: int) -> bytes:
    head = b"".join(
        b"Content-Type: multipart/mixed; boundary=b%d\r\n\r\n--b%d\r\n" % (i, i)
        for i in range(depth)
    )
    return (
        b"From: england@example.org\r\nSubject: x\r\n" + head
        + b"Content-Type: text/plain\r\n\r\nA Par H\r\n"
    )  # fmt: skip


_FIELD = b"X-Pad: " + b"p" * 90 + b"\r\n"
HOSTILE: dict[str, bytes] = {
    # Item 1: one word the fuzzy matcher would have expanded into gigabytes.
    "long word": _mail("SIGNON Etest01 pw-eng\nA " + "q" * 30000 + " H\n" + "q" * 8000 + "\n"),
    # Item 2: the header parser is quadratic on a long From (600 kB took 366 s).
    "long From": b"From: "
    + b"word " * 120000
    + b"<england@example.org>\r\nSubject: x\r\n\r\nhi\r\n",
    "long header block": b"From: england@example.org\r\n" + _FIELD * 3000 + b"\r\nA Par H\r\n",
    "long subject of blanks": _mail("hello", subject="Re" + " " * 200000 + "x"),
    # Item 7: runs of dashes, a long line and many long lines of them.
    "long dash run": _mail("SIGNON Etest01 pw-eng\nA Lon" + "-" * 900000 + "Yor\n"),
    "many dash lines": _mail("SIGNON Etest01 pw-eng\n" + ("A Lon" + "-" * 9000 + "Yor\n") * 90),
    "many short orders": _mail("SIGNON Etest01 pw-eng\n" + ("F Lon H, " * 1000 + "\n") * 90),
    "deeply nested MIME": _nested(5000),
    # Item 3: 1,500 guesses took 33 s of password hashing, and the reply showed the right one.
    "many SIGNON lines": _mail("".join(f"SIGNON Etest01 guess{n}\n" for n in range(1500))),
    "many right SIGNON lines": _mail("SIGNON Etest01 pw-eng\nF Lon H\n" * 1500),
    "NUL in From": b"From: england@example.org\x00@evil.org\r\nSubject: x\r\n\r\nHELP\r\n",
}


def _child(url: str, var_dir: str, raw: bytes) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (_MEMORY, _MEMORY))
    settings = JudgeSettings(
        name="TESTJUDGE", address="judge@example.org", var_dir=Path(var_dir), database_url=url
    )
    state = Table(open_app(settings)).inject(raw, _WHEN)
    # Processed, not failed (a failing message is tried again and at last parked).
    assert state in ("done", "ignored"), state


@pytest.fixture(scope="module")
def judge(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, Table]:
    tmp_path = tmp_path_factory.mktemp("hostile")
    _app, table = started_game(tmp_path)
    return f"sqlite:///{tmp_path / 'var' / 'judge.db'}", tmp_path, table


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_message_is_processed_in_bounded_time_and_memory(
    name: str, judge: tuple[str, Path, Table]
) -> None:
    url, tmp_path, table = judge
    context = multiprocessing.get_context("fork")
    child = context.Process(target=_child, args=(url, str(tmp_path / "var"), HOSTILE[name]))
    start = time.perf_counter()
    child.start()
    child.join(_SECONDS)
    elapsed = time.perf_counter() - start
    if child.is_alive():
        child.kill()
        child.join()
    assert child.exitcode == 0, f"{name}: exit code {child.exitcode} after {elapsed:.1f} s"
    # The judge still answers an ordinary message right after it.
    table.new_mail()
    table.send("france@example.org", "HELP", _WHEN)
    replies = table.new_mail()
    assert [row.to_addr for row in replies] == ["france@example.org"]
