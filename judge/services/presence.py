"""Which judge processes are at work on the database, so that several share it safely.

Several ``judge serve`` processes, on one machine or several, may share one PostgreSQL
database.  Each piece of work is claimed before it is done (a stored message, a game's
moment, a queued mail), in the name of the process doing it: its *token*,
``host:pid:start`` (:func:`process_token`; the start time tells a process from a later
one given the same id; the host is the host name with a mark of the process ids it sees,
:func:`this_host`).  A claim binds only while its process runs; this module says
which ones do:

* every process that claims work is registered in the ``judges`` table and beats there
  (``seen_at``) every :data:`HEARTBEAT_SECONDS` (:class:`Presence`, a thread of
  ``judge serve``'s main process, which beats for its worker processes too, and of the
  one-shot commands that take work);
* a process on this host is gone as soon as its process id is dead (Linux's /proc);
* a process on another host is gone once its row is older than :data:`GONE_SECONDS`,
  or missing.  The rows are written and aged by one clock, the database server's
  (PostgreSQL's ``statement_timestamp()``): the hosts' own clocks may disagree, and one
  running late would otherwise be taken for gone while it works, one running ahead kept
  alive after it died.

A judge that stops cleanly removes its rows, so that its claims are free at once.  The
work itself is safe against a judge wrongly thought gone (its heartbeat held up): a
message is processed only under a row lock that re-checks its claim
(:mod:`judge.services.inbound`), a phase only under the game's row lock, by whoever
finds it still to do; the sender re-confirms its claimed mail every few mails.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from judge.db import queries
from judge.db.session import read_only

log = logging.getLogger(__name__)

#: How often a running judge writes its heartbeat.
HEARTBEAT_SECONDS = 2.0
#: How old a heartbeat of another host may be before its process counts as gone: a few
#: beats, so that one held up by a slow transaction does not free its claims.
GONE_SECONDS = 10.0
#: Rows of processes gone this long are deleted by the others' heartbeats.
FORGET_SECONDS = 3600.0
#: The longest a heartbeat's statements may run or wait for a lock (PostgreSQL): a beat
#: held up longer fails, and is tried again at the next, instead of hanging while the
#: other judges count the silence and take this judge's claims.
BEAT_TIMEOUT_SECONDS = 3.0
#: How old the last successful heartbeat of a process may be while it still claims new
#: work (:meth:`Presence.alive_enough`): short of :data:`GONE_SECONDS`, so that a judge
#: whose heartbeat is stuck stops taking work before the others may take its claims.
CLAIM_SECONDS = 8.0


def _wall_clock() -> datetime:
    """This machine's real time, never a test's clock: the heartbeats' clock on SQLite
    (one machine); on PostgreSQL the database server's clock is used instead
    (:func:`judge.db.queries.heartbeat_clock`)."""
    return datetime.now(UTC)


def _monotonic() -> float:
    """The monotonic clock, system-wide (a worker process reads the heartbeat's time
    its parent wrote); a seam for tests."""
    return time.monotonic()


def recent(beaten_at: float) -> bool:
    """Whether a heartbeat begun at ``beaten_at`` (:func:`_monotonic`; 0: none yet) is
    recent enough for its process to claim new work (:data:`CLAIM_SECONDS`)."""
    return beaten_at > 0 and _monotonic() - beaten_at < CLAIM_SECONDS


def _process_stat(pid: int) -> tuple[str, str]:
    """Process ``pid``'s state letter and when it started, in clock ticks since boot
    (Linux's /proc: the start time tells it from a later process given the same id);
    ``("", "")`` where that cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
        return fields[0].decode(), fields[19].decode()
    except (OSError, IndexError, UnicodeDecodeError):
        return "", ""


@functools.lru_cache(maxsize=1)
def this_host() -> str:
    """This host's name in the tokens: the host name and a mark of the process ids this
    process sees (the boot, and the process-id namespace).  Process ids say whether a
    judge of this host is gone; two machines given one host name, containers that share
    one, or this machine before a reboot are not this host, whose process ids would
    wrongly call their judges dead: their silence decides instead."""
    name = socket.gethostname()
    mark = _process_ids_mark()
    return f"{name}/{mark}" if mark else name


def _process_ids_mark() -> str:
    """A short digest of the boot id and the process-id namespace ("" where neither
    can be read, as off Linux)."""
    seen = []
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as boot:
            seen.append(boot.read().strip())
    except (OSError, UnicodeDecodeError):
        seen.append("")
    try:
        seen.append(os.readlink("/proc/self/ns/pid"))
    except OSError:
        seen.append("")
    if not any(seen):
        return ""
    return hashlib.sha256(" ".join(seen).encode()).hexdigest()[:12]


def process_token(pid: int | None = None) -> str:
    """The name a process's claims carry: host (:func:`this_host`), process id and start
    time."""
    if pid is None or pid == os.getpid():
        return _own_token(os.getpid())
    return f"{this_host()}:{pid}:{_process_stat(pid)[1]}"


@functools.lru_cache(maxsize=4)
def _own_token(pid: int) -> str:
    """This process's token, read once (by its id: a forked child has its own)."""
    return f"{this_host()}:{pid}:{_process_stat(pid)[1]}"


def _parts(token: str) -> tuple[str, int] | None:
    """A token's host and process id, or None for a token that is not one."""
    parts = token.rsplit(":", 2)
    if len(parts) != 3 or not parts[1].isdigit():
        return None
    return parts[0], int(parts[1])


def on_this_host(token: str) -> bool:
    """Whether the process named ``token`` ran on this host."""
    parts = _parts(token)
    return parts is not None and parts[0] == this_host()


def gone_here(token: str) -> bool:
    """Whether the process named ``token`` (:func:`process_token`) is known to be gone
    on this host's own word: it ran here and no live process of that id and start time
    runs now.  A process of another host is never known gone here (see :func:`gone`)."""
    parts = _parts(token)
    if parts is None or parts[0] != this_host():
        return False
    pid, started = parts[1], token.rsplit(":", 1)[1]
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # someone else's process of that id: compare the start times
    state, now_started = _process_stat(pid)
    if state in ("Z", "X"):
        return True  # dead, not yet reaped by its parent
    return bool(started) and now_started not in ("", started)


def gone(session: Session, tokens: Iterable[str]) -> set[str]:
    """Which of the processes ``tokens`` are gone: dead on this host (:func:`gone_here`),
    or of another host and without a heartbeat for :data:`GONE_SECONDS` by the
    heartbeats' clock (:func:`judge.db.queries.heartbeat_clock`: the database server's
    on PostgreSQL); a malformed token is never gone: its claims wait for whatever else
    releases them."""
    wanted = {token for token in tokens if _parts(token) is not None}
    if not wanted:
        return set()
    found = {token for token in wanted if gone_here(token)}
    others = [token for token in wanted if not on_this_host(token)]
    if others:
        alive = queries.fresh_judges(session, others, GONE_SECONDS, _wall_clock)
        found.update(token for token in others if token not in alive)
    return found


def free_claims_of_gone(
    sessions: sessionmaker[Session],
    me: str,
    holders: Callable[[Session], Iterable[str]],
    release: Callable[[Session, set[str]], int],
    what: str,
) -> int:
    """Give back what gone processes held: ``holders(session)`` names the processes
    holding claims of one kind, ``release(session, gone)`` frees those of the gone ones
    and says how many (logged as ``what``).  One read when nobody else holds anything."""
    with sessions() as session:
        held = [token for token in holders(read_only(session)) if token != me]
        dead = gone(session, held) if held else set()
    if not dead:
        return 0
    with sessions() as session, session.begin():
        count = release(session, dead)
    if count:
        log.warning("%d %s held by %s, now gone, taken over", count, what, ", ".join(sorted(dead)))
    return count


def beat(session: Session, roles: Mapping[str, str]) -> None:
    """Write the heartbeat of the processes ``roles`` (token -> role), registering those
    not registered yet; and forget this host's dead processes and any process silent for
    :data:`FORGET_SECONDS` (their claims are free already).  The time written and the
    silence are the heartbeats' clock's (:func:`judge.db.queries.heartbeat_clock`)."""
    if roles:
        described = {}
        for token, role in roles.items():
            parts = _parts(token)
            host, pid = parts if parts is not None else ("", 0)
            described[token] = (role, host, pid)
        queries.beat_judges(session, described, _wall_clock)
    dead = [
        token
        for token in queries.judges_on_host(session, this_host())
        if token not in roles and gone_here(token)
    ]
    queries.remove_judges(session, dead, silent_for=FORGET_SECONDS, local=_wall_clock)


def leave(session: Session, tokens: Iterable[str]) -> None:
    """Remove the rows of the processes ``tokens`` (stopped cleanly: their claims are free
    at once)."""
    queries.remove_judges(session, tokens)


@dataclass
class BeatTime:
    """When the last successful heartbeat began (:func:`_monotonic`; 0: none yet): the
    ``value`` of a shared double (``multiprocessing.Value("d")``) does as well, for
    worker processes that read it."""

    value: float = 0.0


class Presence:
    """The heartbeat thread of a judge process: every :data:`HEARTBEAT_SECONDS` it beats
    for the processes ``roles()`` names (token -> role: itself and its live workers), and
    at :meth:`stop` removes them.  A failed beat is logged and tried again at the next;
    on PostgreSQL a beat gives up after :data:`BEAT_TIMEOUT_SECONDS`.

    ``beaten`` holds when the last successful beat began (:class:`BeatTime`, or a shared
    double that worker processes read, :func:`recent`): a judge stops claiming new work
    once it is :data:`CLAIM_SECONDS` old (:meth:`alive_enough`), before the other judges
    take it for gone."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        roles: Callable[[], Mapping[str, str]],
        interval: float = HEARTBEAT_SECONDS,
        beaten: Any = None,
    ) -> None:
        self.sessions = sessions
        self.roles = roles
        self.interval = interval
        self.beaten: Any = beaten if beaten is not None else BeatTime()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._left: set[str] = set()
        self._lock = threading.Lock()

    def start(self) -> None:
        """Beat once now (so that the process is known before it claims anything), then
        in a thread."""
        self.beat()
        self._thread = threading.Thread(target=self._run, name="judge-presence", daemon=True)
        self._thread.start()

    def beat(self) -> None:
        """One heartbeat now, for the processes named now (those no longer named are
        removed: a worker that died)."""
        with self._lock:  # the thread and a new worker's start may beat together
            roles = dict(self.roles())
            # Taken before the transaction: the row's time is later, so the others never
            # see this beat as older than this process does.
            began = _monotonic()
            with self.sessions() as session, session.begin():
                queries.limit_waits(session, BEAT_TIMEOUT_SECONDS)
                beat(session, roles)
                leave(session, self._left - set(roles))
            self._left = set(roles)
            self.beaten.value = began

    def alive_enough(self) -> bool:
        """Whether the last successful beat is recent enough to claim new work by
        (:data:`CLAIM_SECONDS`): a judge whose beats fail will soon be taken for gone by
        the others, who then take what it holds."""
        return recent(float(self.beaten.value))

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.beat()
            except Exception:
                log.warning("the heartbeat failed; trying again", exc_info=True)

    def stop(self) -> None:
        """Stop beating and remove the rows (the claims of these processes are free)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        try:
            with self.sessions() as session, session.begin():
                leave(session, self._left | set(self.roles()))
        except Exception:
            log.warning("could not remove this judge from the judges table", exc_info=True)
