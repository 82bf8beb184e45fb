"""Opening the judge: settings, database (migrated to the latest schema), templates."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from judge.config import JudgeSettings, load_settings
from judge.db.session import make_engine, make_sessionmaker, upgrade
from judge.mail.maildir import MaildirTransport
from judge.mail.transport import Transport
from judge.services.context import Judge


@dataclass
class App:
    """A judge ready to work: its context, its sessions and its outbound transport
    (the SMTP relay of ``[smtp]``, else the local Maildirs).

    ``sessions`` commit cheaply (see :func:`~judge.db.session.make_engine`'s ``durable``);
    ``store_sessions`` commit to disk before they return, and are the ones that store
    incoming mail: the judge says it has a message only once nothing can undo that.
    """

    judge: Judge
    sessions: sessionmaker[Session]
    transport: Transport
    store_sessions: sessionmaker[Session]


def open_app(
    settings: JudgeSettings | None = None, config: Path | None = None, *, migrate: bool = True
) -> App:
    """Open the judge with ``settings`` (or those read from ``config``).

    ``migrate``: bring the database to the latest schema first (a worker process whose
    parent did that already passes False).
    """
    if settings is None:
        settings = load_settings(config)
    settings.var_dir.mkdir(parents=True, exist_ok=True)
    if migrate:
        upgrade(settings.url)
    sessions = make_sessionmaker(make_engine(settings.url, durable=False))
    store_sessions = make_sessionmaker(make_engine(settings.url, durable=True))
    transport: Transport
    if settings.smtp is not None:
        from judge.mail.smtp_out import SmtpTransport

        transport = SmtpTransport(settings.smtp)
    else:
        transport = MaildirTransport(settings.var_dir)
    return App(Judge(settings=settings), sessions, transport, store_sessions)
