"""Two ``judge serve`` processes on one PostgreSQL database, as on two machines (issue 18,
part 5): they divide the work without doing anything twice.

Each judge is a subprocess with its own settings file and ``var`` directory, its worker
processes on, as deployed.  Judge A reads mail by IMAP IDLE from the test Dovecot (the
test APPENDs to the mailbox); judge B receives mail on its embedded SMTP server.  Both
send through one SMTP sink.  Only A has a games folder: game files are the game masters'
files on one machine; a folder loaded by two judges would have every new file loaded by
both at once (one of them failing on the unique game name) and every edit applied twice
(a new deadline mailed twice).  B serves the games all the same: they are in the database.
(On this one host B could read A's files by the paths stored with the games; nothing edits
them here.)  Where the system allows it, B runs under a host name of its own
(:func:`other_host_prefix`), so that A can tell it is gone only as it would for another
machine, by its heartbeat, not by its process id.

30 games of seven players (each player an address of its own) are made first; while both
judges run, orders come to both, some senders send three messages in quick succession,
then every game's first deadline passes at one moment while more mail arrives.  The
first test asserts that every message got exactly one answer, made in the order sent,
that every game's phase was processed once (one results mail to each player), and that
nothing is left in ``inbound`` or ``outbox``.  The second kills judge B (its whole process
group, as a machine that dies) while its sender holds claimed mail, in the middle of the
burst, and asserts that A finishes everything within :data:`TAKEOVER_SECONDS`, with no
message answered twice.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import smtplib
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from imapclient import IMAPClient  # type: ignore[import-untyped]
from sqlalchemy import select, update
from support import ROOT
from support.dovecot import Dovecot
from support.smtpsink import Received, SmtpSink, header

from benchmarks.bench_mail import Subprocess, order_mail, wait_ready
from benchmarks.many_games import GAME_FILE, PASSWORD, make_games, player_address
from judge.config import JudgeSettings
from judge.db.models import Game, InboundMessage, OutboundMessage, PhaseRecord
from judge.engine import standard_map
from judge.runtime.bootstrap import App, open_app
from judge.services.games import current_position, set_deadline

JUDGE_ADDRESS = "judge@example.org"
GAMES = 30
POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")
#: Every player an address of their own (``power.game@example.org``), all with the
#: benchmarks' one password (hashed once: see benchmarks/many_games.py).
TWO_JUDGES_GAME_FILE = (
    GAME_FILE.split("[players]")[0]
    + "[players]\n"
    + "".join(f'{p} = "{p.lower()}.{{name}}@example.org"\n' for p in POWERS)
)
#: Spring 1901 orders that all succeed together (nobody else moves into these places).
ENGLAND = ("F Lon-NTH", "F Edi-NWG", "A Lvp-Yor")
FRANCE = ("A Par-Bur", "A Mar-Spa", "F Bre-MAO")
#: Germany's three order sets, sent in quick succession: the last one stands.
GERMANY = (
    ("A Ber-Kie", "A Mun-Ruh", "F Kie-Den"),
    ("A Ber-Pru", "A Mun-Boh", "F Kie-Hol"),
    ("A Ber-Sil", "A Mun-Tyr", "F Kie-BAL"),
)
#: Italy's orders, sent as the deadline passes: for Spring or for Fall, whichever the game
#: is in when they are read; either way they get one answer.
ITALY = ("A Ven-Pie", "A Rom-Apu", "F Nap-ION")
#: The games whose German player sends the three order sets in quick succession.
SERIES_GAMES = range(4)
#: Seconds from the moment judge B is killed until everything must be done: its claims
#: are the survivor's within 10 s without a heartbeat (another host; on this host at once,
#: its processes being dead), plus the work itself.
TAKEOVER_SECONDS = 30.0


def game_name(number: int) -> str:
    """The name make_games gives game ``number``."""
    return f"g{number:05d}"


@dataclass(frozen=True)
class Sent:
    """One message the test sends: to judge A (IMAP) or B (SMTP)."""

    message_id: str
    sender: str
    to: str  # "A" or "B"
    raw: bytes


def letter(power: str) -> str:
    """The power's letter in a SIGNON line."""
    return standard_map().power_letter[power]


def orders_mail(game: int, power: str, lines: tuple[str, ...], run: str, n: int) -> Sent:
    """A player's sign-on and orders; to A for even games, B for odd ones (so that each
    sender writes to one judge and "the order sent" is one stream's order)."""
    name = game_name(game)
    sender = player_address(name, power)
    message_id = f"<two.{run}.{n}@players.example>"
    body = "\r\n".join([f"SIGNON {letter(power)}{name} {PASSWORD}", *lines, "SIGNOFF"])
    raw = order_mail(power, sender, f"{power} orders {n}", message_id, body)
    return Sent(message_id, sender, "A" if game % 2 == 0 else "B", raw)


def help_mail(number: int, run: str, n: int) -> Sent:
    """A stranger's HELP (no game at all): to A for even numbers, B for odd ones."""
    sender = f"stranger{number}@example.net"
    message_id = f"<two.{run}.{n}@players.example>"
    raw = order_mail("Stranger", sender, "help", message_id, "HELP")
    return Sent(message_id, sender, "A" if number % 2 == 0 else "B", raw)


def first_wave(run: str) -> list[Sent]:
    """England's and France's orders in every game, and Germany's three order sets in the
    first games, in the middle of the stream."""
    mails: list[Sent] = []
    for game in range(GAMES):
        mails.append(orders_mail(game, "England", ENGLAND, run, len(mails)))
        if game in SERIES_GAMES:
            for lines in GERMANY:
                mails.append(orders_mail(game, "Germany", lines, run, len(mails)))
        mails.append(orders_mail(game, "France", FRANCE, run, len(mails)))
    return mails


def deadline_wave(run: str, first: int) -> list[Sent]:
    """Italy's orders in every game and ten strangers' HELP, sent as the deadline passes."""
    mails = [orders_mail(game, "Italy", ITALY, run, first + game) for game in range(GAMES)]
    mails += [help_mail(number, run, first + GAMES + number) for number in range(10)]
    return mails


# -- the two judges -------------------------------------------------------------------------


@dataclass
class Deployment:
    """One database, two judges, the mailbox A reads, the port B listens on, the sink."""

    app: App  # the test's own view of the database (not a judge)
    a: Subprocess
    b: Subprocess
    b_port: int
    b_var: Path
    dovecot: Dovecot
    imap_user: str
    sink: SmtpSink
    sent: list[Sent] = field(default_factory=list)
    smtp_errors: list[str] = field(default_factory=list)

    def deliver(self, mails: list[Sent], *, wait: bool = True) -> list[threading.Thread]:
        """Send ``mails`` to their judges: A's by IMAP APPEND on one connection, B's by
        SMTP on another, each stream in the order given, both streams at once."""
        self.sent += mails
        threads = [
            threading.Thread(target=self._append, args=([m for m in mails if m.to == "A"],)),
            threading.Thread(target=self._smtp, args=([m for m in mails if m.to == "B"],)),
        ]
        for thread in threads:
            thread.start()
        if wait:
            for thread in threads:
                thread.join(60)
        return threads

    def _append(self, mails: list[Sent]) -> None:
        settings = self.dovecot.imap_settings(self.imap_user)
        with IMAPClient(settings.host, port=settings.port, ssl=False, timeout=30) as client:
            client.login(settings.username, settings.password)
            for mail in mails:
                client.append("INBOX", mail.raw)

    def _smtp(self, mails: list[Sent]) -> None:
        try:
            with smtplib.SMTP("127.0.0.1", self.b_port, timeout=30) as client:
                for mail in mails:
                    refused = client.sendmail(mail.sender, [JUDGE_ADDRESS], mail.raw)
                    assert not refused, refused
        except (smtplib.SMTPException, OSError) as err:
            # Judge B killed under the conversation (the second test looks at what it
            # stored); the first test asserts there was none.
            self.smtp_errors.append(f"{type(err).__name__}: {err}")

    def answers(self) -> dict[str, list[Received]]:
        """The sink's mail by the Message-ID it answers (In-Reply-To), in arrival order."""
        found: dict[str, list[Received]] = {}
        with self.sink._lock:
            received = list(self.sink.received)
        for mail in received:
            reply_to = header(mail.raw, "In-Reply-To")
            if reply_to is not None:
                found.setdefault(reply_to, []).append(mail)
        return found

    def unanswered(self) -> list[str]:
        """The Message-IDs sent that no mail in the sink answers yet."""
        answered = self.answers()
        return [m.message_id for m in self.sent if m.message_id not in answered]

    def settled(self) -> bool:
        """Every message sent answered, every game past its first phase, every stored
        message finished and nothing queued."""
        if self.unanswered():
            return False
        with self.app.sessions() as session:
            phases = set(session.scalars(select(Game.phase)))
            states = set(session.scalars(select(InboundMessage.state)))
            queued = session.scalars(
                select(OutboundMessage.id).where(OutboundMessage.state == "queued").limit(1)
            ).first()
        return phases == {"F1901M"} and states <= {"done", "ignored"} and queued is None

    def set_deadline_in(self, seconds: float) -> datetime:
        """Every game's first deadline ``seconds`` from now (the games are marked for the
        judges' deadline loops in the same transaction); that moment."""
        moment = datetime.now(UTC) + timedelta(seconds=seconds)
        with self.app.sessions() as session, session.begin():
            for game in session.scalars(select(Game)):
                set_deadline(session, game, moment)
        return moment


#: The host name judge B runs under when the system lets a process have its own (a UTS
#: namespace: as root, or where unprivileged user namespaces are allowed).
OTHER_HOST = "judge-b.invalid"
#: Run a Python program (argv[2:]) under the host name argv[1].
_AS_HOST = (
    "import runpy, socket, sys; socket.sethostname(sys.argv[1]); "
    "sys.argv = ['judge', *sys.argv[2:]]; runpy.run_module(sys.argv.pop(1), run_name='__main__', "
    "alter_sys=True)"
)


def other_host_prefix() -> list[str]:
    """The command prefix that runs a program under :data:`OTHER_HOST` (its own UTS
    namespace, so that another judge cannot know it by its process id and must go by its
    heartbeat, as with a judge on another machine), or ``[]`` where the system allows no
    namespace of one's own (the judge then runs on this host)."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return []
    prefix = [unshare, "--user", "--map-root-user", "--uts"]
    probe = subprocess.run(
        [*prefix, sys.executable, "-c", _AS_HOST, OTHER_HOST, "platform"],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    return prefix if probe.returncode == 0 else []


class OtherHostJudge(Subprocess):
    """``judge serve`` as :class:`Subprocess` runs it, under :data:`OTHER_HOST` when
    ``prefix`` (:func:`other_host_prefix`) is given."""

    def __init__(self, config: Path, log: Path, prefix: list[str]) -> None:
        self.other = bool(prefix)
        if not prefix:
            super().__init__(config, log)
            return
        self.command = [
            *prefix, sys.executable, "-c", _AS_HOST, OTHER_HOST,
            "judge.cli", "--config", str(config), "serve",
        ]  # fmt: skip
        self.log = log
        self._handle = log.open("wb")
        self.process = subprocess.Popen(
            self.command, cwd=ROOT, stdout=self._handle, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip


def write_config(directory: Path, database_url: str, sink: SmtpSink, extra: str) -> Path:
    """One judge's settings file, in a directory of its own (as on its own machine)."""
    config = directory / "config" / "judge.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        "[judge]\n"
        'name = "TWOJUDGES"\n'
        f'address = "{JUDGE_ADDRESS}"\n'
        f'var_dir = "{directory / "var"}"\n'
        f'database_url = "{database_url}"\n'
        f'games_dir = "{directory / "games"}"\n'
        # The loop guards would hold back the answers to a player's fourth message in a
        # minute; the test's players are not loops.
        "replies_per_hour = 100000\n"
        "signed_replies_per_hour = 100000\n"
        f'\n[smtp]\nhost = "{sink.host}"\nport = {sink.port}\nsecurity = "none"\n'
        f"\n{extra}"
    )
    return config


@pytest.fixture
def deployment(
    tmp_path: Path,
    postgres_database_url: str,
    dovecot: Dovecot,
    imap_user: str,
    smtp_sink: SmtpSink,
) -> Iterator[Deployment]:
    """The games made (their game-start mail marked sent), then both judges started and
    ready: A watching its mailbox with IDLE, B listening."""
    from support.netutil import free_port

    # The schema is made and the games loaded before either judge starts (a deployment
    # starts its first judge alone once, for the migrations).
    settings = JudgeSettings(
        name="TWOJUDGES",
        address=JUDGE_ADDRESS,
        var_dir=tmp_path / "setup",
        database_url=postgres_database_url,
    )
    app = open_app(settings)
    a_dir, b_dir = tmp_path / "a", tmp_path / "b"
    make_games(app, GAMES, a_dir / "games", start=datetime.now(UTC), game_file=TWO_JUDGES_GAME_FILE)
    with app.sessions() as session, session.begin():
        session.execute(update(OutboundMessage).values(state="sent", sent_at=datetime.now(UTC)))
    imap = dovecot.imap_settings(imap_user)
    a_config = write_config(
        a_dir, postgres_database_url, smtp_sink,
        f'[imap]\nhost = "{imap.host}"\nport = {imap.port}\nsecurity = "none"\n'
        f'username = "{imap.username}"\npassword = "{imap.password}"\nafter = "flag"\n',
    )  # fmt: skip
    b_port = free_port()
    b_config = write_config(
        b_dir, postgres_database_url, smtp_sink, f'[inbound]\nhost = "127.0.0.1"\nport = {b_port}\n'
    )
    judges: list[Subprocess] = []
    try:
        judges.append(Subprocess(a_config, tmp_path / "a.log"))
        judges.append(OtherHostJudge(b_config, tmp_path / "b.log", other_host_prefix()))
        wait_ready(judges[0], "imap", 0)
        wait_ready(judges[1], "smtp", b_port)
        yield Deployment(
            app, judges[0], judges[1], b_port, b_dir / "var", dovecot, imap_user, smtp_sink
        )
    finally:
        for judge in judges:
            judge.stop()
        for maker in (app.sessions, app.store_sessions):
            maker.kw["bind"].dispose()


def wait_until(check: Callable[[], bool], seconds: float, what: Callable[[], str]) -> float:
    """Poll ``check`` until it holds; the seconds it took (fail after ``seconds``)."""
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > seconds:
            raise AssertionError(f"not within {seconds:g} s: {what()}")
        time.sleep(0.05)
    return time.monotonic() - started


def logs(deployment: Deployment) -> str:
    """Both judges' logs, for a failure message."""
    parts = []
    for name, judge in (("A", deployment.a), ("B", deployment.b)):
        text = judge.log.read_text("utf-8", "replace") if judge.log.exists() else ""
        problems = [line for line in text.splitlines() if " ERROR " in line or "Error" in line]
        parts.append(f"judge {name}: {len(problems)} error lines; first: {problems[:5]}")
    return "\n".join(parts)


def state_of(deployment: Deployment) -> str:
    """What is left, for a failure message."""
    with deployment.app.sessions() as session:
        phases = Counter(session.scalars(select(Game.phase)))
        inbound = Counter(session.scalars(select(InboundMessage.state)))
        outbox = Counter(session.scalars(select(OutboundMessage.state)))
    unanswered = deployment.unanswered()
    exited = [
        f"judge {name} exited ({judge.process.returncode})"
        for name, judge in (("A", deployment.a), ("B", deployment.b))
        if judge.process.poll() is not None
    ]
    return (
        f"games {dict(phases)}; inbound {dict(inbound)}; outbox {dict(outbox)}; "
        f"{len(unanswered)} unanswered, e.g. {unanswered[:3]}; {'; '.join(exited)}\n"
        f"{logs(deployment)}"
    )


# -- what the database and the sink must say --------------------------------------------------


def sink_ids(sink: SmtpSink) -> Counter[str]:
    """How many times each Message-ID reached the sink."""
    with sink._lock:
        return Counter(str(header(r.raw, "Message-ID")) for r in sink.received)


def assert_each_message_answered_once(deployment: Deployment) -> None:
    """Every message sent has one answer (one Message-ID, whose mail answers it alone), and
    every answer in the sink answers a message sent; and the judges stored each message once
    and finished it."""
    answers = deployment.answers()
    distinct = {
        key: {str(header(m.raw, "Message-ID")) for m in mails} for key, mails in answers.items()
    }
    sent_ids = [m.message_id for m in deployment.sent]
    assert len(set(sent_ids)) == len(sent_ids)
    wrong = {i: len(distinct.get(i, ())) for i in sent_ids if len(distinct.get(i, ())) != 1}
    assert wrong == {}, f"messages with other than one answer (id: answers): {wrong}"
    assert set(answers) == set(sent_ids)
    for mails in answers.values():
        for mail in mails:
            # Threaded as a reply: References ends with the message answered.
            assert str(header(mail.raw, "References")).split()[-1] == header(
                mail.raw, "In-Reply-To"
            )
    with deployment.app.sessions() as session:
        stored = Counter(session.scalars(select(InboundMessage.message_id)))
        states = Counter(session.scalars(select(InboundMessage.state)))
    assert stored == Counter(sent_ids)
    assert states == Counter({"done": len(sent_ids)})


def assert_answers_made_in_the_order_sent(
    deployment: Deployment, run_series: list[list[str]]
) -> None:
    """Each series of messages from one sender in quick succession was read in the order
    sent: the answers were written (outbox ids) in that order, and the last order set
    stands (checked with the positions)."""
    with deployment.app.sessions() as session:
        rows = session.execute(
            select(InboundMessage.message_id, OutboundMessage.id)
            .join(OutboundMessage, OutboundMessage.inbound_id == InboundMessage.id)
        ).all()  # fmt: skip
    answer_of: dict[str, list[int]] = {}
    for message_id, outbox_id in rows:
        answer_of.setdefault(message_id, []).append(outbox_id)
    for series in run_series:
        order = [answer_of[m] for m in series]
        assert all(len(ids) == 1 for ids in order), order
        assert [ids[0] for ids in order] == sorted(ids[0] for ids in order), (series, order)


def assert_each_phase_processed_once(deployment: Deployment) -> None:
    """One phases row per game and phase (S1901M processed, F1901M current), and each of
    the seven players of each game had exactly one results mail for it, delivered."""
    ids = sink_ids(deployment.sink)
    with deployment.app.sessions() as session:
        games = {g.id: g.name for g in session.scalars(select(Game))}
        phases = Counter(
            (game_id, seq, phase, processed is not None)
            for game_id, seq, phase, processed in session.execute(
                select(PhaseRecord.game_id, PhaseRecord.seq, PhaseRecord.phase,
                       PhaseRecord.processed_at)
            )
        )  # fmt: skip
        results = session.execute(
            select(OutboundMessage.game_id, OutboundMessage.to_addr, OutboundMessage.message_id,
                   OutboundMessage.state)
            .where(OutboundMessage.kind == "results")
        ).all()  # fmt: skip
    assert len(games) == GAMES
    expected_phases: Counter[tuple[int, int, str, bool]] = Counter()
    for game_id in games:
        expected_phases[(game_id, 1, "S1901M", True)] = 1
        expected_phases[(game_id, 2, "F1901M", False)] = 1
    assert phases == expected_phases
    per_player = Counter((games[game_id], to) for game_id, to, _m, _s in results if game_id)
    expected = Counter(
        {(games[g], player_address(games[g], power)): 1 for g in games for power in POWERS}
    )
    assert per_player == expected
    assert {state for _g, _t, _m, state in results} == {"sent"}
    undelivered = [m for _g, _t, m, _s in results if ids[m] == 0]
    assert undelivered == []


def assert_orders_stood(deployment: Deployment) -> None:
    """England's and France's orders in every game, and Germany's last set in the series
    games, were in when the phase was processed."""
    with deployment.app.sessions() as session:
        for number in range(GAMES):
            game = session.scalars(select(Game).where(Game.name == game_name(number))).one()
            units = current_position(session, game).units
            placed = {p: (u.power, u.type.value) for p, u in units.items()}
            want = {
                "nth": ("England", "F"), "nwg": ("England", "F"), "yor": ("England", "A"),
                "bur": ("France", "A"), "spa": ("France", "A"), "mao": ("France", "F"),
            }  # fmt: skip
            if number in SERIES_GAMES:
                want |= {
                    "sil": ("Germany", "A"), "tyr": ("Germany", "A"), "bal": ("Germany", "F")
                }  # fmt: skip
            assert {p: placed.get(p) for p in want} == want, game.name


# -- the tests ------------------------------------------------------------------------------


def test_two_judges_answer_every_message_once_and_process_every_phase_once(
    deployment: Deployment,
) -> None:
    run = uuid.uuid4().hex[:8]
    wave = first_wave(run)
    deployment.deliver(wave)
    wait_until(lambda: not deployment.unanswered(), 30, lambda: state_of(deployment))
    # The burst: every game due at one moment, more mail arriving at both judges then.
    moment = deployment.set_deadline_in(3.0)
    time.sleep(max((moment - datetime.now(UTC)).total_seconds(), 0))
    deployment.deliver(deadline_wave(run, len(wave)))
    took = wait_until(deployment.settled, 40, lambda: state_of(deployment))
    assert deployment.smtp_errors == []
    print(f"\nburst settled {took:.1f} s after the deadline mail was sent")
    deployment.a.stop()
    deployment.b.stop()
    assert deployment.a.process.returncode == 0 and deployment.b.process.returncode == 0
    ids = sink_ids(deployment.sink)
    twice = {m: n for m, n in ids.items() if n > 1}
    assert twice == {}, f"mail delivered more than once: {twice}"
    assert_each_message_answered_once(deployment)
    series = [
        [m.message_id for m in wave if m.sender == player_address(game_name(g), "Germany")]
        for g in SERIES_GAMES
    ]
    assert all(len(s) == 3 for s in series)
    assert_answers_made_in_the_order_sent(deployment, series)
    assert_each_phase_processed_once(deployment)
    assert_orders_stood(deployment)
    with deployment.app.sessions() as session:
        outbox = Counter(session.scalars(select(OutboundMessage.state)))
    assert set(outbox) == {"sent"}


def children(pid: int) -> set[int]:
    """The live child processes of ``pid`` (Linux /proc)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                found.add(int(stat.parent.name))
    return found


def claims_of(deployment: Deployment, pids: set[int]) -> int:
    """How many outbox rows a sender among ``pids`` holds (its claim token names its
    host, pid and start time)."""
    with deployment.app.sessions() as session:
        tokens = session.scalars(
            select(OutboundMessage.claimed_by).where(OutboundMessage.claimed_by.is_not(None))
        ).all()
    owners = [t.rsplit(":", 2)[1] for t in tokens if t is not None and t.count(":") >= 2]
    return sum(1 for owner in owners if owner.isdigit() and int(owner) in pids)


def test_the_other_judge_finishes_everything_when_one_is_killed_mid_burst(
    deployment: Deployment,
) -> None:
    run = uuid.uuid4().hex[:8]
    # Its two worker processes (and multiprocessing's resource tracker).
    b_workers = children(deployment.b.process.pid)
    assert len(b_workers) >= 2, "judge B runs two worker processes"
    moment = deployment.set_deadline_in(2.0)
    time.sleep(max((moment - datetime.now(UTC)).total_seconds(), 0))
    senders = deployment.deliver(deadline_wave(run, 0), wait=False)
    # Kill B, as a machine that dies (every process of it at once), while its sender
    # holds claimed mail (the burst's results, the answers) and has sent some of it
    # (noted in its journal, not yet in the database); after 10 s, holding is enough.
    journal = deployment.b_var / "outbox.journal"
    started = time.monotonic()
    held = 0
    while time.monotonic() - started < 20:
        held = claims_of(deployment, b_workers)
        if held and (time.monotonic() - started > 10 or journal_lines(journal)):
            break
        time.sleep(0.005)
    assert held, f"judge B's sender never held mail within 20 s: {state_of(deployment)}"
    os.killpg(deployment.b.process.pid, signal.SIGKILL)
    killed = time.monotonic()
    deployment.b.process.wait(10)
    for thread in senders:
        thread.join(60)  # B acknowledged each of its messages before it was killed, or...
    # ...refused the connection after: those the test gives to A instead (its mailbox).
    missing = [m for m in deployment.sent if m.to == "B" and not stored(deployment, m)]
    if missing:
        deployment.sent = [m for m in deployment.sent if m not in missing]
        deployment.deliver([Sent(m.message_id, m.sender, "A", m.raw) for m in missing])
    in_journal = journal_lines(journal)
    wait_until(deployment.settled, TAKEOVER_SECONDS, lambda: state_of(deployment))
    took = time.monotonic() - killed
    host = (
        "another host"
        if isinstance(deployment.b, OtherHostJudge) and deployment.b.other
        else "this host"
    )
    print(
        f"\nB ({host}) killed holding {held} mails, {len(in_journal)} sent and only in its "
        f"journal; {len(missing)} of its messages not stored; A finished everything "
        f"{took:.1f} s later"
    )
    assert took < TAKEOVER_SECONDS
    deployment.a.stop()
    assert deployment.a.process.returncode == 0
    assert_each_message_answered_once(deployment)
    assert_each_phase_processed_once(deployment)
    # Delivery is at least once: what B's sender had handed to the sink but only noted in
    # its journal (var/outbox.journal, on its own disk), and at most one more email in
    # flight between the sink's 250 and the journal, may reach the sink twice.
    with deployment.app.sessions() as session:
        journal_ids = set(
            session.scalars(
                select(OutboundMessage.message_id).where(OutboundMessage.id.in_(in_journal))
            )
        )
    twice = {m for m, n in sink_ids(deployment.sink).items() if n > 1}
    print(f"sent again after the kill: {len(twice)} ({len(twice & journal_ids)} from B's journal)")
    assert len(twice - journal_ids) <= 1, twice - journal_ids


def journal_lines(journal: Path) -> set[int]:
    """The outbox ids a sender's journal holds (sent, not yet recorded in the database)."""
    try:
        text = journal.read_text()
    except OSError:
        return set()
    return {int(line.split()[0]) for line in text.splitlines() if line.strip()}


def stored(deployment: Deployment, mail: Sent) -> bool:
    """Whether the judges stored ``mail``."""
    with deployment.app.sessions() as session:
        return (
            session.scalars(
                select(InboundMessage.id).where(InboundMessage.message_id == mail.message_id)
            ).first()
            is not None
        )
