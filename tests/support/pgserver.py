"""A private PostgreSQL server for tests and benchmarks: its own data directory, port and
socket directory, started with the installed server programs and stopped afterwards.

The system's PostgreSQL service is not used (nor needed).  As root, ``initdb`` and
``postgres`` run as the ``postgres`` user, since they refuse to run as root.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from support.netutil import free_port, log_tail

PROGRAMS = ("initdb", "postgres", "pg_isready")
SERVER_USER = "postgres"


class PostgresError(RuntimeError):
    """The server could not be set up or started (the message says why)."""


def _version_key(bin_dir: Path) -> tuple[int, ...]:
    """Sort key for /usr/lib/postgresql/<version>/bin: the newest version first."""
    try:
        return tuple(int(part) for part in bin_dir.parent.name.split("."))
    except ValueError:
        return (0,)


def find_postgres_programs() -> dict[str, Path] | None:
    """initdb, postgres and pg_isready from one installation, or None when there is none.

    Looked for on PATH (following symlinks, so that /usr/local/bin/initdb finds its own
    postgres), then in Debian's /usr/lib/postgresql/*/bin, newest first.
    """
    directories: list[Path] = []
    if (initdb := shutil.which("initdb")) is not None:
        directories.append(Path(initdb).resolve().parent)
    directories += sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=_version_key, reverse=True)
    for directory in directories:
        programs = {name: directory / name for name in PROGRAMS}
        if all(path.is_file() and os.access(path, os.X_OK) for path in programs.values()):
            return programs
    found = {name: shutil.which(name) for name in PROGRAMS}
    if all(found.values()):
        return {name: Path(str(path)) for name, path in found.items()}
    return None


class PostgresServer:
    """``start()`` a server (superuser ``postgres``, no password, on 127.0.0.1), use
    :attr:`url`, ``stop()`` it (which also removes its files).

    ``fsync``: the tests turn it off (their data is thrown away); a benchmark keeps it, as
    a real server would.
    """

    def __init__(self, *, fsync: bool = True) -> None:
        self.fsync = fsync
        self.base: Path | None = None
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The SQLAlchemy URL of the server's ``postgres`` database."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        """Create the data directory and start the server; raise :class:`PostgresError`."""
        programs = find_postgres_programs()
        if programs is None:
            raise PostgresError(
                "PostgreSQL server programs (initdb, postgres, pg_isready) not found on PATH or "
                "in /usr/lib/postgresql/*/bin; install them, e.g. `apt-get install postgresql` "
                "on Debian (.ci/run does this)"
            )
        as_root = os.geteuid() == 0
        run_as: dict[str, Any] = (
            {"user": SERVER_USER, "group": SERVER_USER, "extra_groups": []} if as_root else {}
        )
        # pytest's and mkdtemp's directories are 0700 root: the server user needs its own.
        self.base = base = Path(tempfile.mkdtemp(prefix="judge-pg-"))
        base.chmod(0o755)
        if as_root:
            shutil.chown(base, SERVER_USER, SERVER_USER)
        data, log = base / "data", base / "postgres.log"
        init = subprocess.run(
            [str(programs["initdb"]), "--no-sync", "-U", "postgres", "--auth=trust",
             "--encoding=UTF8", "--locale=C", "-D", str(data)],
            cwd=base, capture_output=True, text=True, check=False, **run_as,
        )  # fmt: skip
        if init.returncode != 0:
            raise PostgresError(f"initdb failed ({init.returncode}):\n{init.stderr}")
        self.port = free_port()
        fsync = "on" if self.fsync else "off"
        with log.open("wb") as log_file:
            self.process = subprocess.Popen(
                [str(programs["postgres"]), "-D", str(data), "-h", "127.0.0.1",
                 "-p", str(self.port), "-k", str(base), "-c", f"fsync={fsync}"],
                cwd=base, stdout=log_file, stderr=subprocess.STDOUT, **run_as,
            )  # fmt: skip
        ready = [str(programs["pg_isready"]), "-q", "-h", "127.0.0.1", "-p", str(self.port)]
        deadline = time.monotonic() + 30
        while subprocess.run(ready, check=False).returncode != 0:
            if self.process.poll() is not None:
                raise PostgresError(f"postgres exited at start:\n{log_tail(log)}")
            if time.monotonic() > deadline:
                raise PostgresError(f"postgres not ready after 30 s:\n{log_tail(log)}")
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop the server (if it runs) and remove its files."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            # SIGINT is PostgreSQL's "fast" shutdown: it disconnects clients instead of
            # waiting for them, as SIGTERM's "smart" shutdown would.
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self.base is not None:
            shutil.rmtree(self.base, ignore_errors=True)
            self.base = None
