"""Game files: load a game master's config file into a game, and reload it when it changes.

A game file says what the game master wants; players change some of the same things by
mail (password, address, time zone) and the game master changes others by mail (the
deadline, PAUSE).  So a reload must not make the database look like the file: it applies
only the keys whose value in the file changed since the file was last applied, which is
kept in ``Game.file_applied``::

    {"rules": {...}, "settings": {...},
     "master": {"address": ..., "password": argon2 hash or None},
     "observers": {"password": argon2 hash of the observers' password or None},
     "players": {"England": {"address": ..., "password": hash or None, "timezone": ...,
                             "takeover": hash or None}},
     "deadline": {"at": ISO time, "seq": the phase it was applied to} or None}

A deadline's "seq" is None while the game forms (the first phase takes it) and 0 when
the phase it was for is not known (it is never applied again).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from judge.config import (
    STORED_WHEN_SET,
    GameConfig,
    load_game_config,
    rules_to_dict,
    settings_to_json,
)
from judge.db import queries
from judge.db.models import Game, GameStatus, Player, PlayerStatus
from judge.presenters import format_deadline
from judge.services import mailings, pictures
from judge.services.context import Judge
from judge.services.game_file_passwords import (
    apply_observer_password,
    apply_takeover,
    same_password,
)
from judge.services.game_settings import game_zone
from judge.services.games import (
    current_position,
    set_deadline,
    start_game,
)
from judge.services.passwords import hash_password


@dataclass(frozen=True)
class LoadReport:
    """What ``judge game load`` did."""

    game: str
    created: bool
    changes: tuple[str, ...]
    started: bool = False


def load_game(session: Session, judge: Judge, path: Path, now: datetime) -> LoadReport:
    """Create the game a config file describes, or apply what changed in it to the game.

    The file is checked completely before anything changes (a bad file raises
    :class:`~judge.config.ConfigError` and the database is untouched).  For a game that
    exists, only the keys whose value in the file differs from what the file last applied
    are applied (see ``Game.file_applied``): what was set by mail since stays.  A changed
    line for a power in a running game is a replacement (new address) or a password reset;
    the players concerned and the game master are told by mail.
    """
    config = load_game_config(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    # Read afresh once no look is under way (and kept from one): a look processing the
    # game on PostgreSQL holds its row, and an edit read against the phase it is
    # processing (a deadline) would be written over the next phase's once the look
    # commits.  The edit waits and applies to that phase.
    game = queries.game_by_name(session, config.name, past_looks=True)
    created = game is None
    changes: list[str] = []
    if game is None:
        game = Game(
            name=config.name,
            variant=config.variant,
            status=GameStatus.FORMING,
            seq=0,
            created_at=now,
            updated_at=now,
        )
        session.add(game)
        changes.append(f"created game {config.name}")
        applied: dict[str, Any] = {}
    elif game.file_applied is not None:
        applied = game.file_applied
    else:
        # Loaded by a judge that kept no record, and edited since: what the old file said
        # is lost, so the players' lines count as applied (see legacy_applied).
        applied = legacy_applied(session, game, config, judge)
        changes.append("took the players' lines as already applied (loaded by an older judge)")
    record = _apply_settings(game, config, applied, changes)
    record["observers"] = apply_observer_password(game, config, applied, changes)
    settings = dict(game.settings or {})
    settings.pop("rejected_config", None)  # this file is good: a later revert is not refused
    game.settings = settings
    game.config_path = str(path)
    game.config_digest = digest
    game.updated_at = now
    session.flush()
    news: list[mailings.EditNews] = []
    record["players"] = _apply_players(session, judge, game, config, applied, changes, news)
    record["deadline"] = _apply_deadline(session, judge, game, config, applied, changes, news)
    game.file_applied = record
    if news:
        mailings.send_edit_applied(session, judge, game, path, changes, news, now)
    started = False
    if config.settings.autostart and game.status == GameStatus.FORMING and len(config.players) == 7:
        start_game(session, judge, game.name, now)
        started = True
        changes.append("started the game")
    return LoadReport(game.name, created, tuple(changes), started)


def legacy_applied(
    session: Session, game: Game, config: GameConfig, judge: Judge
) -> dict[str, Any]:
    """What a file loaded by a judge that kept no record is taken to have applied.

    The game's own rules, settings and master are what the old judge made of the file (the
    old judge compared with them, and nobody else sets them).  The players' lines are taken
    from the file as it is now, since players may have changed their password, address or
    time zone by mail since: nothing in them is applied again.  The file's deadline counts
    as applied to the current phase if it is that phase's deadline, else as stale.
    """
    settings = dict(game.settings or {})
    settings.pop("rejected_config", None)
    return {
        "rules": dict(game.rules or {}),
        "settings": settings,
        "master": {"address": game.master_address, "password": game.master_password_hash},
        "observers": {"password": game.observer_password_hash},
        "players": {
            seat.power: {
                "address": seat.address,
                "password": hash_password(seat.password) if seat.password else None,
                "timezone": seat.timezone,
                "takeover": hash_password(seat.takeover) if seat.takeover else None,
            }
            for seat in config.players
        },
        "deadline": _legacy_deadline(game, config.deadline_utc(game_zone(game, judge))),
    }


def _legacy_deadline(game: Game, deadline: datetime | None) -> dict[str, Any] | None:
    if deadline is None:
        return None
    if game.status == GameStatus.FORMING:
        return {"at": deadline.isoformat(), "seq": None}
    return {"at": deadline.isoformat(), "seq": game.seq if game.deadline == deadline else 0}


#: Settings stored only while set (see :func:`judge.config.settings_to_json`).
_STORED_WHEN_SET = frozenset(STORED_WHEN_SET)


def _apply_settings(
    game: Game, config: GameConfig, applied: dict[str, Any], changes: list[str]
) -> dict[str, Any]:
    """Apply the rule options, settings and master the file changed; the new record."""
    rules = rules_to_dict(config.rules)
    settings = settings_to_json(config.settings)
    for label, new, attr in (("rule options", rules, "rules"), ("settings", settings, "settings")):
        before = applied.get(attr)
        changed = [key for key, value in new.items() if (before or {}).get(key) != value]
        # A key stored only while it is set (settings_to_json: hold_over) that the file no
        # longer sets is back to its default ("timezone" is stored only when named too, but
        # a file that names none keeps the game's zone).
        unset = [k for k in (before or {}) if k not in new and k in _STORED_WHEN_SET]
        if changed or unset:
            # Key by key: a value stored in the game but not changed in the file stays.
            stored = {k: v for k, v in (getattr(game, attr) or {}).items() if k not in unset}
            setattr(game, attr, {
                **stored,
                **{k: _changed_part(stored.get(k), (before or {}).get(k), new[k]) for k in changed},
            })  # fmt: skip
            changed += unset
            if before is not None:
                changes.append(f"changed the {label} ({', '.join(changed)})")
    master = applied.get("master")
    if master is None or master.get("address") != config.master_address:
        game.master_address = config.master_address
        changes.append(f"game master address {config.master_address}")
    recorded = (master or {}).get("password")
    password = recorded
    if not same_password(recorded, config.master_password):
        password = None
        if config.master_password is not None:
            password = hash_password(config.master_password)
            game.master_password_hash = password
            changes.append("set the game master password")
    return {
        "rules": rules,
        "settings": settings,
        "master": {"address": config.master_address, "password": password},
    }


def _changed_part(stored: Any, before: Any, new: Any) -> Any:
    """The value a changed key of the file gives the game: ``new``, except for the
    ``deadlines`` (a dict of dicts), where only the fields the file changed since
    ``before`` replace the ``stored`` ones (SET GRACE by mail survives an edit of the
    hours)."""
    if not (isinstance(stored, dict) and isinstance(before, dict) and isinstance(new, dict)):
        return new
    merged = dict(stored)
    for kind, fields in new.items():
        was, mine = before.get(kind), stored.get(kind)
        if not (isinstance(was, dict) and isinstance(mine, dict) and isinstance(fields, dict)):
            merged[kind] = fields
            continue
        merged[kind] = {**mine, **{f: v for f, v in fields.items() if was.get(f) != v}}
    return merged


def _apply_players(
    session: Session,
    judge: Judge,
    game: Game,
    config: GameConfig,
    applied: dict[str, Any],
    changes: list[str],
    news: list[mailings.EditNews],
) -> dict[str, Any]:
    """Apply the players' lines the file changed; the new record of them.

    In a running game a new address is a replacement player and a new password a reset;
    what a line's player set by mail is kept unless the game master changed that very
    field.  ``news`` gets what the game master is told about each such change.
    """
    running = game.status in (GameStatus.ACTIVE, GameStatus.PAUSED)
    seats = {p.power: p for p in queries.players_of(session, game.id)}
    before = applied.get("players", {})
    record: dict[str, Any] = {}
    for seat in config.players:
        player = seats.get(seat.power)
        if player is None:
            first_hash = hash_password(seat.password) if seat.password else ""
            takeover_hash = hash_password(seat.takeover) if seat.takeover else None
            session.add(
                Player(
                    game_id=game.id,
                    power=seat.power,
                    address=seat.address,
                    password_hash=first_hash,
                    timezone=seat.timezone,
                    wait=False,
                    status=PlayerStatus.ACTIVE,
                    missed=0,
                    created_at=game.updated_at,
                    takeover_hash=takeover_hash,
                )
            )
            changes.append(f"{seat.power}: {seat.address}")
            record[seat.power] = {
                "address": seat.address,
                "password": first_hash or None,
                "timezone": seat.timezone,
                "takeover": takeover_hash,
            }
            continue
        # A seat the file did not list last time (or a game loaded before the file was
        # recorded): compared with the seat as it is.
        last = before.get(seat.power) or {
            "address": player.address,
            "password": player.password_hash or None,
            "timezone": player.timezone,
        }
        unchanged = same_password(last["password"], seat.password)
        password_hash: str | None = last["password"]
        if not unchanged:
            password_hash = hash_password(seat.password) if seat.password else None
        record[seat.power] = {
            "address": seat.address,
            "password": password_hash,
            "timezone": seat.timezone,
        }
        moved = seat.address != last["address"] and seat.address != player.address
        if moved and running:
            new_password = seat.password if not unchanged else None
            _replace(session, judge, game, player, seat.address, seat.timezone, new_password,
                     changes, news)  # fmt: skip
        record[seat.power]["takeover"] = apply_takeover(
            player, last.get("takeover"), seat.takeover, changes
        )
        if moved and running:
            continue
        if moved:
            changes.append(f"{seat.power}: address {player.address} -> {seat.address}")
            player.address = seat.address
        if not unchanged and seat.password and password_hash:
            player.password_hash = password_hash
            if running:
                mailings.send_new_password(
                    session, judge, game, player, seat.password, game.updated_at
                )
                changes.append(f"{seat.power}: password reset")
                news.append(mailings.PasswordReset(seat.power, player.address))
            else:
                changes.append(f"{seat.power}: new password")
        if seat.timezone not in (None, last["timezone"], player.timezone):
            player.timezone = seat.timezone
            changes.append(f"{seat.power}: time zone {seat.timezone}")
    return record


def _replace(
    session: Session,
    judge: Judge,
    game: Game,
    player: Player,
    address: str,
    timezone: str | None,
    password: str | None,
    changes: list[str],
    news: list[mailings.EditNews],
) -> None:
    """Put a new player in a running game's seat: a fresh seat, a welcome with the
    current position and a password, and a word to the player who loses it."""
    old = player.address
    now = game.updated_at
    mailings.send_replaced(session, judge, game, player, old, now)
    player.address = address
    player.timezone = timezone
    player.status = PlayerStatus.ACTIVE
    player.missed = 0
    player.wait = False
    player.absence_from = player.absence_to = None
    player.absences_used = 0
    # A fresh seat: no longer ejected, and an old takeover password no longer opens it.
    player.ejected_at = None
    player.takeover_hash = None
    # The old player knows the old password: the newcomer gets the one the game master
    # wrote in the line, or a new one.
    if password is None:
        password = judge.make_password()
    player.password_hash = hash_password(password)
    position = current_position(session, game)
    # The board of the phase being played, as the game-start mail carries the first's.
    board = pictures.attach(session, judge, game, [pictures.board_view(position, now)], now)
    mailings.send_welcome(
        session, judge, game, player, password, now, position=position, replacement=True,
        pictures=board,
    )  # fmt: skip
    changes.append(f"{player.power}: replacement player {address} for {old}")
    news.append(mailings.Replacement(player.power, address, old))


def _apply_deadline(
    session: Session,
    judge: Judge,
    game: Game,
    config: GameConfig,
    applied: dict[str, Any],
    changes: list[str],
    news: list[mailings.EditNews],
) -> dict[str, Any] | None:
    """Apply the file's one-off ``deadline`` if it is new; the new record of it.

    A deadline applies to the phase being played when it is written (or, written before
    the start, to the first phase), once: the same date still in the file later is stale,
    reported and not applied, so a deadline the game master sent by mail since, or one
    moved by an absence, stays.
    """
    zone = game_zone(game, judge)  # the file's settings are applied already
    deadline = config.deadline_utc(zone)
    if deadline is None:
        return None
    when = deadline.isoformat()
    last = applied.get("deadline")
    text = format_deadline(deadline, zone)
    if last is not None and last.get("at") == when:
        seq = last.get("seq")
        if game.status in (GameStatus.ACTIVE, GameStatus.PAUSED) and seq not in (None, game.seq):
            record = queries.phase_record(session, game.id, seq) if seq else None
            phase = f"for {record.phase}" if record is not None else "for an earlier phase"
            changes.append(f"deadline {text} is stale: it was {phase}")
            was_for = record.phase if record is not None else None
            news.append(mailings.StaleDeadline(deadline, was_for, game.phase, game.deadline))
        return dict(last)
    if game.status in (GameStatus.ACTIVE, GameStatus.PAUSED):
        if deadline != game.deadline:
            set_deadline(session, game, deadline)
            changes.append(f"deadline {text}")
        return {"at": when, "seq": game.seq}
    if game.status == GameStatus.FORMING:
        return {"at": when, "seq": None}
    return {"at": when, "seq": 0}  # a finished game has no phase to apply it to
