"""Opening the judge: settings, database (migrated to the latest schema), templates."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from judge.config import JudgeSettings, load_settings
from judge.db.session import make_engine, make_sessionmaker, upgrade
from judge.mail.maildir import MaildirTransport
from judge.services.context import Judge


@dataclass
class App:
    """A judge ready to work: its context, its sessions and its outbound transport."""

    judge: Judge
    sessions: sessionmaker[Session]
    transport: MaildirTransport


def open_app(settings: JudgeSettings | None = None, config: Path | None = None) -> App:
    """Open the judge with ``settings`` (or those read from ``config``)."""
    if settings is None:
        settings = load_settings(config)
    settings.var_dir.mkdir(parents=True, exist_ok=True)
    upgrade(settings.url)
    sessions = make_sessionmaker(make_engine(settings.url))
    return App(Judge(settings=settings), sessions, MaildirTransport(settings.var_dir))
