"""A private Dovecot IMAP server for tests: started once per session, a fresh mailbox per user.

Any user name logs in with the password ``secret`` and finds an empty mailbox, so each test
takes its own user name instead of resetting a shared one.  Mail arrives the way an MTA would
deliver it, over LMTP.  TLS is on with a certificate from a ``trustme`` test CA: the plain
port offers STARTTLS and a second port speaks IMAPS, so one server serves every kind of test.

Debian's packages are ``dovecot-imapd`` and ``dovecot-lmtpd`` (``.ci/run`` installs them);
the system's own Dovecot service is neither needed nor touched: ``-c`` points the server at
our own configuration, so ``/etc/dovecot`` is never read.
"""

from __future__ import annotations

import dataclasses
import os
import pwd
import shutil
import signal
import smtplib
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import trustme

from judge.config import ImapSettings
from support.netutil import free_port

PASSWORD = "secret"
APT_PACKAGES = "dovecot-imapd dovecot-lmtpd"


class DovecotError(RuntimeError):
    """Dovecot is missing or would not start; the message says why and what to install."""


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _live_members(pgid: int) -> list[int]:
    """Processes of group ``pgid`` that have not exited (zombies, whose sockets are already
    closed, wait for init to reap them and do not count)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            # "pid (comm) state ppid pgrp ...": comm may hold spaces, so split after ")".
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


def _end_group(pgid: int, timeout: float = 5.0) -> None:
    """Kill every process left in process group ``pgid`` and wait until they have exited."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while _live_members(pgid) and time.monotonic() < deadline:
        time.sleep(0.01)


def _find_dovecot() -> str:
    # Debian installs the master in /usr/sbin, which is not on a normal user's PATH.
    found = shutil.which("dovecot") or shutil.which("dovecot", path="/usr/sbin:/usr/local/sbin")
    if found is None:
        raise DovecotError(
            "the dovecot binary was not found (looked on PATH and in /usr/sbin): the IMAP tests "
            f"need a real Dovecot; install it with `apt-get install {APT_PACKAGES}` on Debian "
            "(.ci/run does this)"
        )
    return found


class Dovecot:
    """One Dovecot instance in its own temporary directory, listening on 127.0.0.1.

    ``imap_port`` speaks plain IMAP with STARTTLS offered, ``imaps_port`` implicit TLS,
    ``lmtp_port`` accepts deliveries.  ``ca_file`` is the PEM of the CA that signed the
    server's certificate (for ``127.0.0.1`` and ``localhost``).  Ports stay the same across
    :meth:`restart`.
    """

    def __init__(self) -> None:
        self.binary = _find_dovecot()
        self.directory = Path(tempfile.mkdtemp(prefix="judge-dovecot-"))
        # Dovecot's unprivileged processes must reach their sockets and the mail under here;
        # mkdtemp makes 0700.
        self.directory.chmod(0o755)
        self.imap_port = free_port()
        self.imaps_port = free_port()
        self.lmtp_port = free_port()
        self.log = self.directory / "dovecot.log"
        self.ca_file = str(self.directory / "ca.pem")
        self._process: subprocess.Popen[bytes] | None = None
        self._write_tls_files()
        self._write_config()

    # -- setup ---------------------------------------------------------------------

    def _write_tls_files(self) -> None:
        ca = trustme.CA()
        server = ca.issue_cert("127.0.0.1", "localhost")
        ca.cert_pem.write_to_path(self.ca_file)
        server.private_key_pem.write_to_path(str(self.directory / "key.pem"))
        server.cert_chain_pems[0].write_to_path(str(self.directory / "cert.pem"))
        for pem in server.cert_chain_pems[1:]:
            pem.write_to_path(str(self.directory / "cert.pem"), append=True)
        # The key is read by the root master process only; the certificate is public.
        (self.directory / "key.pem").chmod(0o600)

    def _write_config(self) -> None:
        d = self.directory
        mail = d / "mail"
        mail.mkdir()
        if os.geteuid() == 0:
            # imap-login refuses to run as root and mail owned by uid 0 is refused: use the
            # Debian package's system users and keep the mail as nobody.
            internal, login, uid, gid, first_uid = "dovecot", "dovenull", "nobody", "nogroup", 65534
            shutil.chown(mail, "nobody", "nogroup")
        else:
            me = pwd.getpwuid(os.geteuid())
            internal = login = uid = me.pw_name
            gid = str(os.getegid())
            first_uid = os.geteuid()
        last_uid = "" if os.geteuid() == 0 else f"last_valid_uid = {os.geteuid()}"
        config = f"""\
# Written by tests/support/dovecot.py for one test session.
instance_name = judge-test-{uuid.uuid4().hex[:8]}
base_dir = {d}/run
state_dir = {d}/state
log_path = {d}/dovecot.log
listen = 127.0.0.1
protocols = imap lmtp
default_internal_user = {internal}
default_login_user = {login}
first_valid_uid = {first_uid}
{last_uid}
ssl = yes
ssl_cert = <{d}/cert.pem
ssl_key = <{d}/key.pem
disable_plaintext_auth = no
auth_mechanisms = plain login
# Tests log in with a wrong password on purpose: no 2 s failure delay (see also start()).
auth_failure_delay = 0
# LMTP recipients arrive as user@localhost; the mailbox is the user name alone, as in IMAP.
auth_username_format = %Ln
mail_location = maildir:{mail}/%u
passdb {{
  driver = static
  args = password={PASSWORD}
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={mail}/%u allow_all_users=yes
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.imap_port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {self.imaps_port}
    ssl = yes
  }}
}}
service lmtp {{
  inet_listener lmtp {{
    address = 127.0.0.1
    port = {self.lmtp_port}
  }}
}}
service anvil {{
  chroot =
}}
"""
        (d / "dovecot.conf").write_text(config)

    # -- running -------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether the master process is alive."""
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        """The Dovecot master's process id while it runs (its children do the work)."""
        return self._process.pid if self._process is not None and self.running else None

    def start(self, timeout: float = 15.0) -> None:
        """Start the server and wait until its IMAP and LMTP ports accept connections."""
        if self.running:
            return
        with self.log.open("ab") as log:
            self._process = subprocess.Popen(
                [self.binary, "-F", "-c", str(self.directory / "dovecot.conf")],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                # Its own process group, so that stop() can end the IMAP sessions too.
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        ports = (self.imap_port, self.imaps_port, self.lmtp_port)
        while not all(_listening(port) for port in ports):
            if self._process.poll() is not None:
                raise DovecotError(f"dovecot exited at start:\n{self.log_tail()}")
            if time.monotonic() > deadline:
                self.stop()
                raise DovecotError(f"dovecot not listening after {timeout} s:\n{self.log_tail()}")
            time.sleep(0.02)
        # A failed login makes Dovecot delay every later login from the same address by 2 s
        # and more for half a minute; tests all come from 127.0.0.1 and one fails on
        # purpose.  The auth process turns that penalty off when it cannot reach this
        # socket, which it first looks for at the first login, after this.
        (self.directory / "run" / "anvil-auth-penalty").unlink(missing_ok=True)

    def stop(self) -> None:
        """Stop the server and end every IMAP session, as a crash or reboot would."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        # The master leaves its log process and running imap sessions behind when it exits
        # (a client in IDLE would never notice the restart): kill what is left of the
        # process group, as a reboot would.
        _end_group(process.pid)

    def restart(self) -> None:
        """Stop and start again on the same ports: every client is disconnected."""
        self.stop()
        self.start()

    def cleanup(self) -> None:
        """Stop the server and remove its directory."""
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)

    def log_tail(self, lines: int = 30) -> str:
        """The end of the server's log, for failure messages."""
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    # -- using it ------------------------------------------------------------------

    def deliver(self, raw: bytes, user: str, sender: str = "player@example.org") -> None:
        """Deliver ``raw`` into ``user``'s INBOX as an MTA would (LMTP adds Return-Path).

        ``sender=""`` gives ``MAIL FROM:<>`` and so ``Return-Path: <>``, as a bounce has.
        """
        with smtplib.LMTP("127.0.0.1", self.lmtp_port, timeout=10) as lmtp:
            refused = lmtp.sendmail(sender, [f"{user}@localhost"], raw)
        if refused:
            raise DovecotError(f"LMTP refused the delivery to {user}: {refused}")

    def imap_settings(self, user: str, security: str = "none", **overrides: Any) -> ImapSettings:
        """Settings that log ``user`` in: ``security`` "none" or "starttls" on the plain port,
        "tls" on the IMAPS port (both trusting :attr:`ca_file`)."""
        port = self.imaps_port if security == "tls" else self.imap_port
        settings = ImapSettings(
            host="127.0.0.1",
            port=port,
            security=security,
            username=user,
            password=PASSWORD,
            ca_file=self.ca_file if security != "none" else "",
        )
        return dataclasses.replace(settings, **overrides)
