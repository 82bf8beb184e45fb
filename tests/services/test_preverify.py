"""Issue 18 part 3: a batch's passwords are verified before its write transaction, so that
argon2 never runs while the batch holds SQLite's write lock (storing new mail waits for
that lock); the verdicts stay exact (a password changed in between is checked again, a
wrong one costs one verification and counts towards the lockout as before); the work is
bounded per message; and the memory of verified passwords is sized to the database's
password hashes."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from support.servicekit import Table, at, started_game

from judge.db import queries
from judge.db.models import InboundMessage, OrderRecord, OutboundMessage, Player, SignonGuard
from judge.runtime.bootstrap import App
from judge.services import passwords, preverify
from judge.services.inbound import process_batch
from judge.services.intake import receive_many
from judge.services.passwords import (
    MEMORY_CEILING,
    MEMORY_FLOOR,
    Verdicts,
    hash_password,
    memory_size,
    size_memory,
    verify_password,
)

NOW = "2026-11-23 13:00"
#: A batch's time budget no loaded machine reaches: these tests look at what one batch
#: verifies, and the default (half a second) may cut a batch short under load, as it
#: means to (seen once in a full run: only the first message processed).
BUDGET = 60.0


class LockWatch:
    """The judge's argon2 hasher, wrapped: each verification notes whether, at that
    moment, a transaction of the judge held the SQLite database's write lock (a
    connection of its own tries to take it, without waiting)."""

    def __init__(self, hasher: Any, database: Path) -> None:
        self.hasher = hasher
        self.database = database
        #: For each verification: whether the write lock was held.
        self.locked: list[bool] = []

    def _write_locked(self) -> bool:
        connection = sqlite3.connect(self.database, timeout=0, isolation_level=None)
        try:
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as err:
            assert "locked" in str(err), err
            return True
        else:
            connection.execute("ROLLBACK")
            return False
        finally:
            connection.close()

    def verify(self, stored_hash: str, password: str) -> bool:
        self.locked.append(self._write_locked())
        result: bool = self.hasher.verify(stored_hash, password)
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(self.hasher, name)


@pytest.fixture
def game(tmp_path: Path) -> tuple[App, Table]:
    return started_game(tmp_path)


@pytest.fixture
def watch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LockWatch]:
    watcher = LockWatch(passwords._HASHER, tmp_path / "var" / "judge.db")
    monkeypatch.setattr(passwords, "_HASHER", watcher)
    yield watcher


def raw(n: int, sender: str, body: str) -> bytes:
    return (
        f"From: {sender}\r\nTo: judge@example.org\r\nSubject: orders {n}\r\n"
        f"Message-ID: <pre{n}@players.example>\r\n\r\n{body}\r\n"
    ).encode()


def store(app: App, raws: list[bytes]) -> list[int]:
    with app.store_sessions() as session, session.begin():
        receive_many(session, raws, at(NOW))
    with app.sessions() as session:
        return list(session.scalars(select(InboundMessage.id).order_by(InboundMessage.id)))


def replies(app: App) -> dict[str, str]:
    """The answer to each stored message, by its subject's number: its first line."""
    with app.sessions() as session:
        rows = session.scalars(select(OutboundMessage).order_by(OutboundMessage.id))
        found = {}
        for row in rows:
            if row.inbound_id is not None and row.to_addr != "gm@example.org":
                found[f"{row.inbound_id}:{row.to_addr}"] = row.body
        return found


def active(app: App, power: str) -> list[str]:
    with app.sessions() as session:
        rows = session.scalars(
            select(OrderRecord).where(OrderRecord.active.is_(True)).order_by(OrderRecord.id)
        )
        return [str(r.canonical) for r in rows if r.player.power == power]


def test_first_sign_ons_are_verified_with_no_write_transaction_open(
    game: tuple[App, Table], watch: LockWatch
) -> None:
    app, _table = game
    ids = store(
        app,
        [
            raw(1, "england@example.org", "SIGNON Etest01 pw-eng\r\nF Lon-NTH"),
            raw(2, "germany@example.org", "SIGNON Gtest01 pw-ger\r\nA Mun-Ruh"),
            raw(3, "gm@example.org", "SIGNON Mtest01 gm-secret\r\nBECOME Italy\r\nA Rom-Apu"),
            raw(4, "someone@example.net", "SIGNON Rtest01 not-russias\r\nA Mos-Ukr"),
            raw(5, "england@example.org", "SIGNON Etest01 pw-eng\r\nA Lvp-Yor"),
        ],
    )
    states = process_batch(app.sessions, app.judge, ids, at(NOW), budget=BUDGET)
    assert states == dict.fromkeys(ids, "done")
    # Four passwords verified (England's twice in the batch, once by argon2), the wrong
    # one among them, each once: none while a write transaction held the lock.
    assert watch.locked == [False, False, False, False]
    assert active(app, "England") == ["F lon-nth", "A lvp-yor"]
    assert active(app, "Germany") == ["A mun-ruh"]
    assert active(app, "Italy") == ["A rom-apu"]
    assert active(app, "Russia") == []
    answers = replies(app)
    wrong = answers[f"{ids[3]}:someone@example.net"]
    assert "Wrong password for Russia in test01" in " ".join(wrong.split())
    # The wrong password counts towards the lockout, as it did when checked inside.
    with app.sessions() as session:
        guard = session.scalars(select(SignonGuard)).one()
        assert (guard.seat, guard.registered, guard.failures) == ("Russia", False, 1)


def test_one_message_at_a_time_too(game: tuple[App, Table], watch: LockWatch) -> None:
    app, table = game
    table.send("france@example.org", "SIGNON Ftest01 paris-123\nA Par-Bur\n", NOW)
    table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nF Ank-BLA\n", NOW)
    assert watch.locked == [False, False]
    assert active(app, "France") == ["A par-bur"]
    assert active(app, "Turkey") == ["F ank-bla"]


def test_a_password_changed_within_the_batch_is_checked_again(
    game: tuple[App, Table], watch: LockWatch
) -> None:
    app, _table = game
    ids = store(
        app,
        [
            raw(1, "england@example.org", "SIGNON Etest01 pw-eng\r\nSET PASSWORD brand-new-1"),
            # Checked before the batch against the old hash: wrong then, right now.
            raw(2, "england@example.org", "SIGNON Etest01 brand-new-1\r\nF Lon-NTH"),
            # Right before the batch, wrong now.
            raw(3, "england@example.org", "SIGNON Etest01 pw-eng\r\nF Lon-ENG"),
        ],
    )
    states = process_batch(app.sessions, app.judge, ids, at(NOW), budget=BUDGET)
    assert states == dict.fromkeys(ids, "done")
    assert active(app, "England") == ["F lon-nth"]
    answers = replies(app)
    assert "Wrong password for England" in " ".join(
        answers[f"{ids[2]}:england@example.org"].split()
    )
    # Before the batch: pw-eng and brand-new-1 against the old hash (pw-eng once for
    # messages 1 and 3).  In the transaction, against the new hash, the two passwords
    # the verdicts do not know for it: the rare case that still verifies inside.
    assert watch.locked == [False, False, True, True]
    with app.sessions() as session:
        england = session.scalars(select(Player).where(Player.power == "England")).one()
        assert verify_password(england.password_hash, "brand-new-1")


def test_a_password_changed_by_another_process_in_between(game: tuple[App, Table]) -> None:
    app, _table = game
    ids = store(app, [raw(1, "england@example.org", "SIGNON Etest01 pw-eng\r\nF Lon-NTH")])
    with app.sessions() as session:
        decoded = {ids[0]: _decoded(session, ids[0])}
    verdicts, covered = preverify.preverify(
        app.sessions, app.judge, ids, decoded, {ids[0]: 100}, at(NOW)
    )
    assert covered == 1 and len(verdicts) == 1
    with app.sessions() as session, session.begin():
        england = session.scalars(select(Player).where(Player.power == "England")).one()
        old = england.password_hash
        england.password_hash = hash_password("changed-meanwhile")
        assert verdicts.known(old, "pw-eng") is True
        assert verdicts.known(england.password_hash, "pw-eng") is None
        assert not verify_password(england.password_hash, "pw-eng", verdicts)
        assert verify_password(england.password_hash, "changed-meanwhile", verdicts)


def _decoded(session: Any, inbound_id: int) -> Any:
    from judge.mail.decode import decode

    row = session.get(InboundMessage, inbound_id)
    return decode(row.raw)


def test_a_wrong_password_is_not_remembered_beyond_its_batch(game: tuple[App, Table]) -> None:
    stored = hash_password("right-one")
    verdicts = Verdicts()
    assert not verdicts.check(stored, "wrong-one")
    assert verdicts.known(stored, "wrong-one") is False
    # Another batch knows nothing of it; the right one is remembered as before.
    assert Verdicts().known(stored, "wrong-one") is None
    assert verdicts.check(stored, "right-one")
    assert verify_password(stored, "right-one")


def test_sign_on_lines_beyond_a_wrong_password_cost_nothing(
    game: tuple[App, Table], watch: LockWatch
) -> None:
    app, _table = game
    guesses = "\r\n".join(f"SIGNON Etest01 guess{n}" for n in range(1000))
    same = "\r\n".join("SIGNON Gtest01 pw-ger" for _ in range(1000))
    ids = store(
        app,
        [raw(1, "guesser@example.net", guesses), raw(2, "germany@example.org", same)],
    )
    process_batch(app.sessions, app.judge, ids, at(NOW), budget=BUDGET)
    # One wrong guess (nothing after it is checked); Germany's password once.
    assert watch.locked == [False, False]


def test_a_locked_seat_is_not_verified(game: tuple[App, Table], watch: LockWatch) -> None:
    _app, table = game
    for n in range(5):
        table.send("guesser@example.net", f"SIGNON Etest01 guess{n}\n", f"2026-11-23 13:0{n}")
    assert watch.locked == [False] * 5
    table.send("guesser@example.net", "SIGNON Etest01 pw-eng\n", "2026-11-23 13:06")
    assert watch.locked == [False] * 5  # refused unchecked, before and in the transaction
    assert "Not checked: after 5 wrong passwords" in table.new_mail()[-1].body


def test_at_most_so_many_verifications_a_message_before_the_batch(
    game: tuple[App, Table],
) -> None:
    app, _table = game
    lines = [f"SIGNON {p}test01 x-{p}" for p in "AEFGIRTM"] * 3
    mail = raw(1, "gm@example.org", "\r\n".join(lines))
    ids = store(app, [mail])
    with app.sessions() as session:
        decoded = {ids[0]: _decoded(session, ids[0])}
        asks = preverify.signon_asks(session, app.judge, ids, decoded, {ids[0]: len(mail)}, at(NOW))
    assert len(asks) == 1 and len(asks[0]) == preverify.MAX_PER_MESSAGE == 8


def test_the_memory_follows_the_password_hashes(
    game: tuple[App, Table], monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _table = game
    with app.sessions() as session:
        # Seven players and the game master.
        assert queries.password_hash_count(session) == 8
    assert size_memory(10) == MEMORY_FLOOR == 4096
    assert size_memory(7000) == 8750  # 1,000 games of seven: all fit, with a margin
    assert memory_size() == 8750
    assert size_memory(10**9) == MEMORY_CEILING
    # Counted again only every so often, then sized to what the database holds.
    monkeypatch.setattr(preverify, "_sized_at", None)
    with app.sessions() as session:
        monkeypatch.setattr(queries, "password_hash_count", lambda _session: 7000)
        assert preverify.resize_memory(session) == 8750
        monkeypatch.setattr(queries, "password_hash_count", lambda _session: 20000)
        assert preverify.resize_memory(session) is None
        monkeypatch.setattr(preverify, "_sized_at", -preverify.RECOUNT_SECONDS)
        assert preverify.resize_memory(session) == 25000
    size_memory(0)
    assert memory_size() == MEMORY_FLOOR


def test_a_smaller_memory_forgets_the_least_recently_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(passwords, "MEMORY_FLOOR", 2)
    first, second, third = (hash_password(f"pw-{n}") for n in range(3))
    size_memory(10)
    for stored, password in ((first, "pw-0"), (second, "pw-1"), (third, "pw-2")):
        assert verify_password(stored, password)
    assert verify_password(first, "pw-0")  # first is now the most recently used
    size_memory(1)
    assert memory_size() == 2
    assert list(passwords._MEMORY)[-2:] == [third, first]
    assert second not in passwords._MEMORY
    monkeypatch.undo()
    size_memory(0)
