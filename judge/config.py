"""Typed configuration: the judge's own settings and the game master's game files.

Both are TOML.  Every key has a documented default; a bad file raises
:class:`ConfigError` naming the file, the key and the fix, and nothing is changed.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from judge.engine.board import standard_map
from judge.engine.notation import MAX_WORD_LENGTH
from judge.engine.phases import PhaseKind
from judge.engine.rules import CivilDisorder, Edition, Rules


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message says where and what to do."""


def _zone(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(f'{where}: expected a time zone name such as "Europe/London"')
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(
            f"{where}: unknown time zone {value!r}; use an IANA name such as "
            '"Europe/London", "America/New_York" or "UTC"'
        ) from None
    return value


# -- the judge's settings -------------------------------------------------------------


@dataclass(frozen=True)
class ImapSettings:
    """``[imap]``: the mailbox the judge reads (absent: the embedded SMTP server listens).

    ``security``: ``tls`` (IMAPS, port 993), ``starttls`` (port 143) or ``none`` (tests);
    ``after``: what to do with a stored message: ``flag`` (a ``$JudgeStored`` keyword),
    ``seen`` (mark it read) or ``move`` (to ``move_to``); ``poll_seconds``: the polling
    interval when the server has no IDLE; ``idle_seconds``: how long one IDLE lasts before
    it is renewed (servers drop idle connections after 30 minutes); ``ca_file``: a CA
    bundle to trust besides the system's.
    """

    host: str
    port: int = 993
    security: str = "tls"
    username: str = ""
    password: str = ""
    folder: str = "INBOX"
    after: str = "flag"
    move_to: str = "Judge/Processed"
    poll_seconds: float = 60.0
    idle_seconds: float = 1500.0
    ca_file: str = ""


@dataclass(frozen=True)
class SmtpSettings:
    """``[smtp]``: the relay the judge sends through (absent: local Maildirs under var/mail).

    ``security``: ``starttls`` (port 587), ``tls`` (implicit TLS, port 465) or ``none``;
    ``max_attempts``: transient failures are retried with growing delays up to this many
    tries, then the message is given up and the game master told; ``retry_seconds``: the
    delay after the first failed try, doubled after each further one (up to an hour);
    ``claim_seconds``: how long a sender holds a message it is sending, so no other sender
    takes it meanwhile; it must outlast any send (several times ``timeout``), and it is
    also how soon a message is tried again when the judge died in the middle of sending it.
    """

    host: str
    port: int = 587
    security: str = "starttls"
    username: str = ""
    password: str = ""
    ca_file: str = ""
    timeout: float = 30.0
    max_attempts: int = 8
    retry_seconds: float = 30.0
    claim_seconds: float = 600.0


@dataclass(frozen=True)
class InboundSmtpSettings:
    """``[inbound]``: the embedded SMTP server used when there is no ``[imap]``."""

    host: str = "127.0.0.1"
    port: int = 2525


@dataclass(frozen=True)
class JudgeSettings:
    """Settings of the judge itself (``config/judge.toml``).

    ``name``: shown in every email header (default ``"JUDGE"``); ``address``: the judge's
    own email address (default ``judge@localhost``); ``var_dir``: where the database and
    the local Maildirs live (default ``var``, relative to the config file's directory's
    parent); ``database_url``: any SQLAlchemy URL (default SQLite under ``var_dir``);
    ``timezone``: the zone of games whose file names none, and of their players who name
    none, looked up when used (default ``UTC``; see
    :func:`judge.services.game_settings.game_zone`);
    ``max_message_bytes``: larger mail gets a polite refusal (default 1,000,000);
    ``replies_per_hour``, ``loop_replies_per_hour``, ``signed_replies_per_hour``: the
    reply rations per address (defaults 30, 3 and 100; see docs/mail.md);
    ``tick_seconds``: how often ``judge serve``'s loops look at the database when nothing
    woke them (default 1.0: deadlines, retries of mail that failed);
    ``worker_processes``: ``judge serve`` processes stored mail and sends mail in two
    processes of their own (default ``true``), so the three stages run side by side on
    several CPUs; ``false`` keeps everything in threads of one process;
    ``gather_seconds``: how long ``judge serve`` lets mail gather, once told of some,
    before it fetches, processes or sends it (default 0.05; 0 for at once): work done in
    batches costs a fraction per message, which leaves the CPUs to the mail server;
    ``max_message_seconds``: the longest ``judge serve``'s mail worker may work on one
    message before it is stopped as stalled and started again (default 20; under the 30 s
    that storing waits for the database); ``worker_memory_mb``: the address space the mail
    worker process may use, so that a runaway message fails with an error instead of
    inviting the kernel's out-of-memory killer (default 2048; 0 for no limit);
    ``grey_press_delay``: a grey or faked press (and every press of a game that allows
    faking) is held for a random time of up to this many seconds (at least half of it)
    before it is delivered, so that its arrival does not tie it to its sender's other
    mail (default 300; 0: delivered at once).
    """

    name: str = "JUDGE"
    address: str = "judge@localhost"
    var_dir: Path = Path("var")
    database_url: str = ""
    timezone: str = "UTC"
    max_message_bytes: int = 1_000_000
    #: Replies per hour to one address for mail that did not sign on, at most (a last
    #: defence against mail loops and floods; strangers can fill it, so it never holds
    #: back the answer to a signed-on message).
    replies_per_hour: int = 30
    #: Of those, replies to mail that may be a robot's (nothing in it was read, it was too
    #: large, or it answers the judge's own mail): a loop between two programs that strip
    #: the headers marking automatic mail stops after this many.
    loop_replies_per_hour: int = 3
    #: Replies per hour to one address for signed-on mail (right password), at most:
    #: generous for a player revising orders, a bound for a stolen password.
    signed_replies_per_hour: int = 100
    tick_seconds: float = 1.0
    worker_processes: bool = True
    gather_seconds: float = 0.05
    max_message_seconds: float = 20.0
    worker_memory_mb: int = 2048
    grey_press_delay: int = 300
    imap: ImapSettings | None = None
    smtp: SmtpSettings | None = None
    inbound: InboundSmtpSettings = field(default_factory=InboundSmtpSettings)
    #: Game files ``judge serve`` loads by itself (new ones, and edits to known ones):
    #: default ``games/`` beside the settings file; ``games_dir`` in ``[judge]`` overrides
    #: it (relative to the project, like ``var_dir``).
    games_dir: Path | None = None

    @property
    def url(self) -> str:
        """The database URL, defaulting to ``sqlite:///<var_dir>/judge.db``."""
        return self.database_url or f"sqlite:///{self.var_dir / 'judge.db'}"


def load_settings(path: Path | None) -> JudgeSettings:
    """Read the judge's settings; a missing file gives the defaults."""
    if path is None or not path.exists():
        return JudgeSettings()
    data = _read_toml(path)
    judge = data.get("judge", {})
    if not isinstance(judge, dict):
        raise ConfigError(f"{path}: [judge] must be a table")
    for table in data:
        if table not in ("judge", "imap", "smtp", "inbound"):
            raise ConfigError(
                f"{path}: [{table}]: unknown table; the settings file has [judge], [imap], "
                "[smtp] and [inbound]"
            )
    known = {
        "name", "address", "var_dir", "database_url", "timezone", "max_message_bytes",
        "replies_per_hour", "loop_replies_per_hour", "signed_replies_per_hour", "games_dir",
        "tick_seconds", "worker_processes", "gather_seconds", "max_message_seconds",
        "worker_memory_mb", "grey_press_delay",
    }  # fmt: skip
    for key in judge:
        if key not in known:
            raise ConfigError(f"{path}: [judge] {key}: unknown key; known keys: {sorted(known)}")
    base = path.resolve().parent.parent
    var_dir = Path(str(judge.get("var_dir", "var")))
    return JudgeSettings(
        name=str(judge.get("name", "JUDGE")),
        address=str(judge.get("address", "judge@localhost")).lower(),
        var_dir=var_dir if var_dir.is_absolute() else base / var_dir,
        database_url=str(judge.get("database_url", "")),
        timezone=_zone(judge.get("timezone", "UTC"), f"{path}: [judge] timezone"),
        max_message_bytes=_int(judge, "max_message_bytes", 1_000_000, f"{path}: [judge]"),
        replies_per_hour=_int(judge, "replies_per_hour", 30, f"{path}: [judge]"),
        loop_replies_per_hour=_int(judge, "loop_replies_per_hour", 3, f"{path}: [judge]"),
        signed_replies_per_hour=_int(judge, "signed_replies_per_hour", 100, f"{path}: [judge]"),
        tick_seconds=_seconds(judge, "tick_seconds", 1.0, f"{path}: [judge]"),
        worker_processes=_bool(judge, "worker_processes", True, f"{path}: [judge]"),
        gather_seconds=_seconds(judge, "gather_seconds", 0.05, f"{path}: [judge]", upto=5),
        max_message_seconds=_seconds(judge, "max_message_seconds", 20.0, f"{path}: [judge]"),
        worker_memory_mb=_megabytes(judge, "worker_memory_mb", 2048, f"{path}: [judge]"),
        grey_press_delay=int(
            _seconds(judge, "grey_press_delay", 300, f"{path}: [judge]", upto=86_400)
        ),
        imap=_section(data, "imap", ImapSettings, path),
        smtp=_section(data, "smtp", SmtpSettings, path),
        inbound=_section(data, "inbound", InboundSmtpSettings, path) or InboundSmtpSettings(),
        games_dir=(
            base / str(judge["games_dir"])
            if "games_dir" in judge
            else path.resolve().parent / "games"
        ),
    )


def _int(table: dict[str, Any], key: str, default: int, where: str) -> int:
    value = table.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ConfigError(f"{where} {key}: expected a positive whole number, got {value!r}")
    return value


def _bool(table: dict[str, Any], key: str, default: bool, where: str) -> bool:
    value = table.get(key, default)
    if not isinstance(value, bool):
        raise ConfigError(f"{where} {key}: expected true or false, got {value!r}")
    return value


def _megabytes(table: dict[str, Any], key: str, default: int, where: str) -> int:
    """A size in MiB: 0 (no limit) or at least 256 (less cannot run the judge)."""
    value = table.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not (value == 0 or value >= 256):
        raise ConfigError(
            f"{where} {key}: expected a whole number of MiB, at least 256 (or 0 for no "
            f"limit), got {value!r}"
        )
    return value


def _seconds(
    table: dict[str, Any], key: str, default: float, where: str, *, upto: float | None = None
) -> float:
    """A number of seconds: positive, or with ``upto`` from 0 to ``upto``."""
    value = table.get(key, default)
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if upto is None and not (number and value > 0):
        raise ConfigError(f"{where} {key}: expected a positive number of seconds, got {value!r}")
    if upto is not None and not (number and 0 <= value <= upto):
        raise ConfigError(
            f"{where} {key}: expected a number of seconds from 0 to {upto:g}, got {value!r}"
        )
    return float(value)


_TYPES_BY_NAME: dict[str, type | tuple[type, ...]] = {
    "str": str,
    "int": int,
    "float": (int, float),
}
_CHOICES = {
    ("imap", "security"): ("tls", "starttls", "none"),
    ("imap", "after"): ("flag", "seen", "move"),
    ("smtp", "security"): ("starttls", "tls", "none"),
}


def _section(data: dict[str, Any], name: str, kind: Any, path: Path) -> Any:
    """A settings dataclass from table ``[name]``, every key checked against its type."""
    table = data.get(name)
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [{name}] must be a table")
    fields = {f.name: f for f in dataclasses.fields(kind)}
    values: dict[str, Any] = {}
    for key, value in table.items():
        spec = fields.get(key)
        if spec is None:
            raise ConfigError(f"{path}: [{name}] {key}: unknown key; known keys: {sorted(fields)}")
        wanted = _TYPES_BY_NAME[str(spec.type)]
        if not isinstance(value, wanted) or isinstance(value, bool):
            raise ConfigError(f"{path}: [{name}] {key}: expected {spec.type}, got {value!r}")
        choices = _CHOICES.get((name, key))
        if choices and value not in choices:
            raise ConfigError(f"{path}: [{name}] {key}: use one of {', '.join(choices)}")
        values[key] = float(value) if spec.type == "float" and isinstance(value, int) else value
    required = [
        f.name
        for f in fields.values()
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]
    for key in required:
        if key not in values:
            raise ConfigError(f'{path}: [{name}] {key}: required (e.g. {key} = "mail.example.org")')
    return kind(**values)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except OSError as err:
        raise ConfigError(f"{path}: cannot read the file: {err.strerror}") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None


# -- a game's settings: one typed value, stored as JSON ---------------------------------


class Press(enum.StrEnum):
    """What press (player-to-player mail through the judge) a game allows."""

    #: No press, except to and from the game master.
    NONE = "none"
    #: The sender is always named.
    WHITE = "white"
    #: The sender is never named (press to the game master is always white).
    GREY = "grey"
    #: Both; white unless the press says ``GREY``.
    WHITE_GREY = "white/grey"
    #: Both; grey unless the press says ``WHITE``.
    GREY_WHITE = "grey/white"
    #: White by default, grey allowed, and a press may claim another sender
    #: (``FAKE AS <power>``) or other recipients (``FAKE TO <powers>``).
    FAKE = "fake"

    @property
    def white(self) -> bool:
        """Whether a press may name its sender."""
        return self is not Press.GREY and self is not Press.NONE

    @property
    def grey(self) -> bool:
        """Whether a press may hide its sender."""
        return self in (Press.GREY, Press.WHITE_GREY, Press.GREY_WHITE, Press.FAKE)

    @property
    def grey_by_default(self) -> bool:
        """Whether a press that says neither ``WHITE`` nor ``GREY`` is grey."""
        return self in (Press.GREY, Press.GREY_WHITE)


class ObserverPress(enum.StrEnum):
    """What press the observers of a game may send (press to the master always)."""

    #: The same as the players (the njudge's default).
    ANY = "any"
    #: Broadcasts only.
    BROADCAST = "broadcast"
    #: None, except to the game master.
    NONE = "none"


class Endgame(enum.StrEnum):
    """How the players of a game may end it by agreement (a solo and the master's
    TERMINATE end any game)."""

    #: The njudge's standing votes: ``SET DRAW`` and ``SET CONCEDE`` (the default).
    NJUDGE = "njudge"
    #: The house rules' proposals (seed 003, section 8): ``PROPOSE`` and ``VOTE``.
    HOUSE = "house"
    #: No ending by agreement.
    NONE = "none"


class Year(enum.StrEnum):
    """How a game's year is played."""

    #: Movement, retreat and adjustment phases, each with its own deadline (the default).
    STANDARD = "standard"
    #: House rule 3.1: two deadlines a year, Spring and Autumn; each season's orders carry
    #: the retreats and (Autumn) the builds or removals, conditional if need be, and the
    #: judge plays the season's moves, retreats and adjustments at its one deadline.
    TWO_SEASON = "two-season"


class Nmr(enum.StrEnum):
    """What happens at the end of grace while orders are missing."""

    #: The phase is processed: missing units hold.
    PROCESS = "process"
    #: The game waits for the game master (a replacement player, or PROCESS by hand).
    WAIT = "wait"


class Observers(enum.StrEnum):
    """Who may watch a game (``OBSERVE``): its public mail, never a player's own."""

    #: Anyone, as on the njudge.
    OPEN = "open"
    #: Whoever gives the observers' password of the game file (``observer_password``).
    PASSWORD = "password"
    #: Nobody.
    NONE = "none"


PRESS_KINDS = tuple(kind.value for kind in Press)


@dataclass(frozen=True)
class Deadline:
    """How a phase type's deadline is set.

    ``hours`` after the phase starts, then moved forward to the next ``at`` time of day
    (when given) that falls on one of ``days`` (weekday numbers, Monday = 0; default every
    day), all in the game's time zone.  ``grace`` hours after the deadline late orders
    are still taken before the phase is processed without them; ``early`` minutes after
    the last required order is in (and nobody has SET WAIT) the phase is processed early;
    ``remind`` hours before the deadline players who still owe orders are reminded
    (0: no reminder).
    """

    hours: float
    at: str | None = None
    days: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 6)
    grace: float = 0.0
    early: float = 10.0
    remind: float = 0.0


@dataclass(frozen=True)
class GameSettings:
    """Everything a game's file sets besides the rule options, as stored with the game.

    Each default is written here and nowhere else: a game file or a stored record that
    leaves a key out gets the default below (see :func:`settings_from_json`).
    """

    press: Press = Press.WHITE
    #: The game's own IANA time zone; None when its file names none: the judge's default
    #: zone (``[judge] timezone``) then applies, looked up whenever it is used, so that
    #: changing judge.toml moves such games along.
    timezone: str | None = None
    #: Start as soon as the game file names all seven players.
    autostart: bool = False
    nmr: Nmr = Nmr.PROCESS
    #: Late notices do not name the late powers.
    anonymous: bool = False
    #: Who may watch the game.
    observers: Observers = Observers.OPEN
    #: House rule 4.6: a new player who takes over an open seat by mail gets one more
    #: phase length (the current phase kind's ``hours``) before the current deadline.
    hold_over: bool = False
    #: Press to some powers only (False: broadcasts only, and press to the master).
    partial_press: bool = True
    #: What the observers may send.
    observer_press: ObserverPress = ObserverPress.ANY
    #: The longest press (its text, in characters) a player may send.
    press_max_chars: int = 10_000
    #: How many press messages one sender may send in an hour (a flood is refused).
    press_per_hour: int = 30
    #: The game master receives a copy of every press (the njudge's ALL PRESS).
    master_reads_press: bool = False
    #: The dateline only the game master may use in a press release (house rule 10.2).
    master_dateline: str = "Versailles"
    #: How the players may end the game by agreement.
    endgame: Endgame = Endgame.NJUDGE
    #: Draws Include All Survivors (njudge votes): ``SET DRAW`` names no powers, and a
    #: draw passes when every survivor voted for one.  False: each names the powers of
    #: the draw (``SET DRAW AEF``), and it passes when every survivor named the same set.
    dias: bool = True
    #: ``SET CONCEDE <power>`` is allowed (njudge votes).
    concessions: bool = True
    #: LIST says whether a draw vote is pending (never who voted).
    show_pending_draw: bool = False
    #: Who voted how (njudge votes) is shown to the game master only; False: LIST shows
    #: every standing vote to everyone.
    secret_votes: bool = True
    #: House proposals: a proposal's result gives its counts (8.5: passed or defeated
    #: only, unless the game chooses).
    vote_counts: bool = False
    #: House rule 8.4: how long the game master has to ACCEPT or DECLINE a proposal that
    #: passed while more than half of the players who sent orders made no mention of it.
    master_decision_hours: float = 24.0
    #: Three phases a year (the njudge's) or two seasons (house rule 3.1).
    year: Year = Year.STANDARD
    movement: Deadline = Deadline(48.0)
    retreat: Deadline = Deadline(24.0)
    adjustment: Deadline = Deadline(24.0)
    #: The map picture: drawn and sent with every results and game-start mail, and
    #: answered to ``MAP``; False: text only, and ``MAP`` refused for the game.
    maps: bool = True

    def deadline(self, kind: PhaseKind) -> Deadline:
        """The deadline settings of phases of ``kind``."""
        if kind is PhaseKind.MOVEMENT:
            return self.movement
        if kind is PhaseKind.RETREAT:
            return self.retreat
        return self.adjustment


#: The defaults, for the readers below that fill in what a file or a record leaves out.
_DEFAULTS = GameSettings()
#: The phase kinds' names, as keys of ``[deadlines]`` and of the stored ``deadlines``.
DEADLINE_KINDS = ("movement", "retreat", "adjustment")


def _text_or_none(value: object) -> str | None:
    return None if value is None else str(value)


def _weekdays(value: Iterable[object]) -> tuple[int, ...]:
    return tuple(int(str(day)) for day in value)


#: How each stored key is read back (JSON has no tuples and no enums).
_DEADLINE_FIELDS: dict[str, Callable[[Any], Any]] = {
    "hours": float,
    "at": _text_or_none,
    "days": _weekdays,
    "grace": float,
    "early": float,
    "remind": float,
}
_SETTINGS_FIELDS: dict[str, Callable[[Any], Any]] = {
    "press": Press,
    "timezone": _text_or_none,
    "autostart": bool,
    "nmr": Nmr,
    "anonymous": bool,
    "observers": Observers,
    "hold_over": bool,
    "partial_press": bool,
    "observer_press": ObserverPress,
    "press_max_chars": int,
    "press_per_hour": int,
    "master_reads_press": bool,
    "master_dateline": str,
    "endgame": Endgame,
    "dias": bool,
    "concessions": bool,
    "show_pending_draw": bool,
    "secret_votes": bool,
    "vote_counts": bool,
    "master_decision_hours": float,
    "year": Year,
    "maps": bool,
}
#: The settings stored only while they differ from their defaults, so that a record of a
#: game that never set them reads as older judges wrote it.
STORED_WHEN_SET = (
    "hold_over", "partial_press", "observer_press", "press_max_chars", "press_per_hour",
    "master_reads_press", "master_dateline", "endgame", "dias", "concessions",
    "show_pending_draw", "secret_votes", "vote_counts", "master_decision_hours", "year",
    "maps",
)  # fmt: skip
_RULES_FIELDS: dict[str, Callable[[Any], Any]] = {
    "edition": Edition,
    "build_anywhere": bool,
    "civil_disorder": CivilDisorder,
    "retreat_priority": bool,
    "implied_orders": bool,
    "proxies": bool,
    "victory_centres": int,
}


def deadline_to_json(deadline: Deadline) -> dict[str, Any]:
    """A phase type's deadline settings as stored (JSON-ready)."""
    return {
        "hours": deadline.hours,
        "at": deadline.at,
        "days": list(deadline.days),
        "grace": deadline.grace,
        "early": deadline.early,
        "remind": deadline.remind,
    }


def deadline_from_json(data: Mapping[str, Any], default: Deadline) -> Deadline:
    """The inverse of :func:`deadline_to_json`; a key left out keeps ``default``'s value
    (the kind's default, see :class:`GameSettings`)."""
    known = {key: read(data[key]) for key, read in _DEADLINE_FIELDS.items() if key in data}
    return dataclasses.replace(default, **known)


def settings_to_json(settings: GameSettings) -> dict[str, Any]:
    """The settings stored with a game (JSON-ready).

    ``timezone`` is left out when the game names none (rather than stored as null): a
    stored record is applied key by key (see judge/services/game_files.py), so a file that
    names no zone never takes away a zone the game has, and games stored by older judges,
    which wrote ``"UTC"`` for a file without a zone, keep UTC.
    """
    data: dict[str, Any] = {"press": settings.press.value}
    if settings.timezone is not None:
        data["timezone"] = settings.timezone
    data.update(
        autostart=settings.autostart,
        nmr=settings.nmr.value,
        anonymous=settings.anonymous,
        observers=settings.observers.value,
        deadlines={kind: deadline_to_json(getattr(settings, kind)) for kind in DEADLINE_KINDS},
    )
    for key in STORED_WHEN_SET:
        # Only when set: a record of a game without it reads as older judges wrote it.
        value = getattr(settings, key)
        if value != getattr(_DEFAULTS, key):
            data[key] = value.value if isinstance(value, enum.Enum) else value
    return data


def settings_from_json(data: Mapping[str, Any]) -> GameSettings:
    """The inverse of :func:`settings_to_json`, which also reads what older judges stored:
    a key left out (or a phase kind left out of ``deadlines``) gets its default, and keys
    this judge does not know (bookkeeping such as ``rejected_config``) are ignored."""
    known = {key: read(data[key]) for key, read in _SETTINGS_FIELDS.items() if key in data}
    stored = data["deadlines"] if isinstance(data.get("deadlines"), Mapping) else {}
    for kind in DEADLINE_KINDS:
        if isinstance(stored.get(kind), Mapping):
            known[kind] = deadline_from_json(stored[kind], getattr(_DEFAULTS, kind))
    return dataclasses.replace(_DEFAULTS, **known)


def rules_to_dict(rules: Rules) -> dict[str, Any]:
    """Rule options as stored in the database."""
    return {
        "edition": rules.edition.value,
        "build_anywhere": rules.build_anywhere,
        "civil_disorder": rules.civil_disorder.value,
        "retreat_priority": rules.retreat_priority,
        "implied_orders": rules.implied_orders,
        "proxies": rules.proxies,
        "victory_centres": rules.victory_centres,
    }


def rules_from_dict(data: Mapping[str, Any]) -> Rules:
    """The inverse of :func:`rules_to_dict`; a key left out gets :class:`Rules`' default."""
    return Rules(**{key: read(data[key]) for key, read in _RULES_FIELDS.items() if key in data})


# -- game files -----------------------------------------------------------------------

_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,19}$")


def valid_game_name(name: str) -> bool:
    """Whether ``name`` is a game's name: 1 to 20 lowercase letters, digits, - or _,
    starting with a letter."""
    return _NAME.fullmatch(name) is not None


_ADDRESS = re.compile(r"^[^@\s<>,;]+@[^@\s<>,;]+$")
_TIME = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


@dataclass(frozen=True)
class PlayerConfig:
    """One seat: the power, the player's address, an optional initial password, and an
    optional takeover password (a new player signs on with it once the seat is open)."""

    power: str
    address: str
    password: str | None = None
    timezone: str | None = None
    takeover: str | None = None


@dataclass(frozen=True)
class GameConfig:
    """A game as the game master's TOML file defines it."""

    name: str
    path: Path
    rules: Rules
    variant: str = "standard"
    settings: GameSettings = GameSettings()
    #: The game master's explicit deadline for the current phase, as written: aware when
    #: the file gave an offset, else naive: a wall-clock time in the game's zone, which
    #: the game, not the file alone, knows (see :meth:`deadline_utc`).
    deadline: datetime | None = None
    master_address: str | None = None
    master_password: str | None = None
    #: The observers' password (``observers = "password"`` only), as written.
    observer_password: str | None = None
    players: tuple[PlayerConfig, ...] = ()

    def deadline_utc(self, zone: str) -> datetime | None:
        """The file's ``deadline`` (aware, UTC), a naive one read in ``zone``, the game's
        (see :func:`judge.services.game_settings.game_zone`)."""
        if self.deadline is None:
            return None
        when = self.deadline
        if when.tzinfo is None:
            when = when.replace(tzinfo=ZoneInfo(zone))
        return when.astimezone(ZoneInfo("UTC"))


_GAME_KEYS = {
    "name", "variant", "rules", "press", "timezone", "start", "options", "nmr", "anonymous",
    "deadline", "observers", "observer_password", "hold_over", "partial_press",
    "observer_press", "press_max_chars", "press_per_hour", "master_reads_press",
    "master_dateline", "endgame", "dias", "concessions", "show_pending_draw", "secret_votes",
    "vote_counts", "master_decision_hours", "year", "maps",
}  # fmt: skip
_OPTION_KEYS = {
    "build_anywhere": bool,
    "civil_disorder": str,
    "retreat_priority": bool,
    "implied_orders": bool,
    "proxies": bool,
    "victory_centres": int,
}

EXAMPLE = """\
[game]
name = "winter01"          # lowercase letters, digits, - and _
rules = "2023"             # or "2000"
press = "white"            # none, white, grey, white/grey, grey/white or fake
timezone = "Europe/London" # default: the judge's ([judge] timezone)
start = "manual"           # or "auto": start when the file names all seven players

[deadlines]                # hours after the phase starts, optionally at a time of day
movement = { hours = 48, at = "20:00" }
retreat = 24
adjustment = 24

[master]
address = "gm@example.org"
password = "choose-one"

[players]
England = "alice@example.org"
France = { address = "bob@example.org", password = "optional" }
"""


def load_game_config(path: Path) -> GameConfig:
    """Read and check a game file; raise :class:`ConfigError` naming the key and the fix.

    Only the keys the file has are read: what it leaves out gets the default of
    :class:`GameSettings` or :class:`~judge.engine.rules.Rules`.
    """
    data = _read_toml(path)
    where = str(path)
    for key in data:
        if key not in ("game", "deadlines", "master", "players"):
            raise ConfigError(
                f"{where}: [{key}]: unknown table; a game file has [game], [deadlines], "
                f"[master] and [players]. Example:\n{EXAMPLE}"
            )
    game = data.get("game")
    if not isinstance(game, dict):
        raise ConfigError(f"{where}: missing the [game] table. Example:\n{EXAMPLE}")
    for key in game:
        if key not in _GAME_KEYS:
            raise ConfigError(
                f"{where}: [game] {key}: unknown key; known keys: {sorted(_GAME_KEYS)}"
            )
    name = game.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ConfigError(
            f"{where}: [game] name: expected 1 to 20 lowercase letters, digits, - or _, "
            f'starting with a letter (e.g. "winter01"), got {name!r}'
        )
    variant = game.get("variant", "standard")
    if variant != "standard":
        raise ConfigError(f'{where}: [game] variant: only "standard" is available, got {variant!r}')
    rules = _rules(game, where)
    settings: dict[str, Any] = {}
    if "press" in game:
        press = game["press"]
        if press not in PRESS_KINDS:
            raise ConfigError(
                f"{where}: [game] press: use one of {', '.join(PRESS_KINDS)}, got {press!r}"
            )
        settings["press"] = Press(press)
    if "timezone" in game:
        settings["timezone"] = _zone(game["timezone"], f"{where}: [game] timezone")
    if "start" in game:
        start = game["start"]
        if start not in ("manual", "auto"):
            raise ConfigError(f'{where}: [game] start: use "manual" or "auto", got {start!r}')
        settings["autostart"] = start == "auto"
    deadline = _file_deadline(game, where)
    if "nmr" in game:
        nmr = game["nmr"]
        if nmr not in tuple(Nmr):
            raise ConfigError(f'{where}: [game] nmr: use "process" or "wait", got {nmr!r}')
        settings["nmr"] = Nmr(nmr)
    if "anonymous" in game:
        if not isinstance(game["anonymous"], bool):
            raise ConfigError(f"{where}: [game] anonymous: use true or false")
        settings["anonymous"] = game["anonymous"]
    if "maps" in game:
        if not isinstance(game["maps"], bool):
            raise ConfigError(
                f"{where}: [game] maps: use true (a map picture with the results) or false, "
                f"got {game['maps']!r}"
            )
        settings["maps"] = game["maps"]
    observers, observer_password = _observers(game, where)
    if observers is not None:
        settings["observers"] = observers
    if "hold_over" in game:
        if not isinstance(game["hold_over"], bool):
            raise ConfigError(f"{where}: [game] hold_over: use true or false")
        settings["hold_over"] = game["hold_over"]
    settings.update(_press_settings(game, where))
    settings.update(_endgame_settings(game, where))
    if "year" in game:
        year = game["year"]
        if year not in tuple(Year):
            raise ConfigError(
                f'{where}: [game] year: use "standard" (movement, retreats and adjustments, '
                f'each with its deadline) or "two-season" (house rule 3.1), got {year!r}'
            )
        settings["year"] = Year(year)

    table = data.get("deadlines", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: [deadlines] must be a table")
    for key, value in table.items():
        if key not in DEADLINE_KINDS:
            raise ConfigError(
                f"{where}: [deadlines] {key}: unknown phase type; use movement, retreat, adjustment"
            )
        settings[key] = _deadline(value, getattr(_DEFAULTS, key), f"{where}: [deadlines] {key}")

    master = data.get("master", {})
    if not isinstance(master, dict):
        raise ConfigError(f"{where}: [master] must be a table with address and password")
    master_address = master.get("address")
    if master_address is not None:
        master_address = _address(master_address, f"{where}: [master] address")
    master_password = master.get("password")
    if master_password is not None and (
        not isinstance(master_password, str) or len(master_password) < 4
    ):
        raise ConfigError(f"{where}: [master] password: expected text of at least 4 characters")

    players: list[PlayerConfig] = []
    table = data.get("players", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: [players] must be a table of power = address")
    game_map = standard_map()
    seen: set[str] = set()
    for key, value in table.items():
        power = game_map.find_power(key)
        if power is None or len(key) < 3:
            raise ConfigError(
                f"{where}: [players] {key}: not a power; use one of {', '.join(game_map.powers)}"
            )
        if power in seen:
            raise ConfigError(f"{where}: [players] {key}: {power} is listed twice")
        seen.add(power)
        players.append(_player(power, value, f"{where}: [players] {key}"))
    return GameConfig(
        name=name,
        path=path,
        rules=rules,
        variant=variant,
        settings=dataclasses.replace(_DEFAULTS, **settings),
        deadline=deadline,
        master_address=master_address,
        master_password=master_password,
        observer_password=observer_password,
        players=tuple(sorted(players, key=lambda p: p.power)),
    )


#: The longest press a game may allow, and the most press an hour: bounds that keep one
#: sender's mail within what the judge is built to carry.
MAX_PRESS_CHARS = 100_000
MAX_PRESS_PER_HOUR = 1_000


def _press_settings(game: dict[str, Any], where: str) -> dict[str, Any]:
    """The press keys of ``[game]`` the file has, checked."""
    settings: dict[str, Any] = {}
    for key in ("partial_press", "master_reads_press"):
        if key in game:
            if not isinstance(game[key], bool):
                raise ConfigError(f"{where}: [game] {key}: use true or false")
            settings[key] = game[key]
    if "observer_press" in game:
        value = game["observer_press"]
        if value not in tuple(ObserverPress):
            raise ConfigError(
                f'{where}: [game] observer_press: use "any", "broadcast" or "none", got {value!r}'
            )
        settings["observer_press"] = ObserverPress(value)
    for key, high in (("press_max_chars", MAX_PRESS_CHARS), ("press_per_hour", MAX_PRESS_PER_HOUR)):
        if key in game:
            value = game[key]
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
                raise ConfigError(
                    f"{where}: [game] {key}: expected a whole number from 1 to {high:,}, "
                    f"got {value!r}"
                )
            settings[key] = value
    if "master_dateline" in game:
        value = game["master_dateline"]
        if not isinstance(value, str) or not value.strip() or len(value) > 40 or "\n" in value:
            raise ConfigError(
                f"{where}: [game] master_dateline: expected a place name of 1 to 40 "
                f'characters on one line (e.g. "Versailles"), got {value!r}'
            )
        settings["master_dateline"] = value.strip()
    return settings


#: The longest time a game may give its master to decide under house rule 8.4 (a week).
MAX_DECISION_HOURS = 168.0


def _endgame_settings(game: dict[str, Any], where: str) -> dict[str, Any]:
    """The keys of ``[game]`` on ending a game by agreement the file has, checked."""
    settings: dict[str, Any] = {}
    if "endgame" in game:
        value = game["endgame"]
        if value not in tuple(Endgame):
            raise ConfigError(
                f'{where}: [game] endgame: use "njudge" (SET DRAW and SET CONCEDE), "house" '
                f'(PROPOSE and VOTE) or "none", got {value!r}'
            )
        settings["endgame"] = Endgame(value)
    for key in ("dias", "concessions", "show_pending_draw", "secret_votes", "vote_counts"):
        if key in game:
            if not isinstance(game[key], bool):
                raise ConfigError(f"{where}: [game] {key}: use true or false")
            settings[key] = game[key]
    if "master_decision_hours" in game:
        value = game["master_decision_hours"]
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not 1 <= value <= MAX_DECISION_HOURS
        ):
            raise ConfigError(
                f"{where}: [game] master_decision_hours: expected a number of hours from 1 to "
                f"{MAX_DECISION_HOURS:g}, got {value!r}"
            )
        settings["master_decision_hours"] = float(value)
    return settings


def _observers(game: dict[str, Any], where: str) -> tuple[Observers | None, str | None]:
    """``[game] observers`` (None when left out) and ``observer_password``, checked
    together: the password is needed with "password" and read with it only."""
    observers: Observers | None = None
    if "observers" in game:
        value = game["observers"]
        if value not in tuple(Observers):
            raise ConfigError(
                f'{where}: [game] observers: use "open", "password" or "none", got {value!r}'
            )
        observers = Observers(value)
    password = game.get("observer_password")
    if observers is Observers.PASSWORD:
        if password is None:
            raise ConfigError(
                f'{where}: [game] observer_password: needed with observers = "password" '
                "(the password observers give: OBSERVE <game> <password>)"
            )
        if not isinstance(password, str) or len(password) < 4 or len(password.split()) != 1:
            raise ConfigError(
                f"{where}: [game] observer_password: expected one word of at least 4 characters"
            )
    elif password is not None:
        raise ConfigError(
            f'{where}: [game] observer_password: only read with observers = "password"; '
            'remove it, or set observers to "password"'
        )
    return observers, password


def _rules(game: dict[str, Any], where: str) -> Rules:
    """The rule options of ``[game]`` (``rules`` and ``[game.options]``)."""
    checked: dict[str, Any] = {}
    if "rules" in game:
        edition_text = str(game["rules"])
        try:
            checked["edition"] = Edition(edition_text)
        except ValueError:
            raise ConfigError(
                f'{where}: [game] rules: use "2023" or "2000", got {edition_text!r}'
            ) from None
    options = game.get("options", {})
    if not isinstance(options, dict):
        raise ConfigError(f"{where}: [game.options] must be a table")
    for key, value in options.items():
        kind = _OPTION_KEYS.get(key)
        if kind is None:
            raise ConfigError(
                f"{where}: [game.options] {key}: unknown option; known: {sorted(_OPTION_KEYS)}"
            )
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ConfigError(
                f"{where}: [game.options] {key}: expected {kind.__name__}, got {value!r}"
            )
        checked[key] = value
    if "civil_disorder" in checked:
        try:
            checked["civil_disorder"] = CivilDisorder(checked["civil_disorder"])
        except ValueError:
            raise ConfigError(
                f'{where}: [game.options] civil_disorder: use "edition" or "house"'
            ) from None
    if "victory_centres" in checked and not 1 <= checked["victory_centres"] <= 34:
        raise ConfigError(f"{where}: [game.options] victory_centres: must be between 1 and 34")
    if game.get("year") == Year.TWO_SEASON and "civil_disorder" not in checked:
        # House rule 3.5 is the two-season year's rule for removals not ordered; a file
        # may still name the edition's.
        checked["civil_disorder"] = CivilDisorder.HOUSE
    return Rules(**checked)


def _file_deadline(game: dict[str, Any], where: str) -> datetime | None:
    """``[game] deadline`` as written (see :attr:`GameConfig.deadline`)."""
    value = game.get("deadline")
    if value is None:
        return None
    deadline: datetime | None = None
    if isinstance(value, datetime):
        deadline = value
    elif isinstance(value, str):
        try:
            deadline = datetime.fromisoformat(value.strip())
        except ValueError:
            deadline = None
    if deadline is None:
        raise ConfigError(
            f'{where}: [game] deadline: expected a date and time such as "2026-11-28 20:00" '
            "(in the game's time zone)"
        )
    return deadline


_DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def _deadline(value: object, default: Deadline, where: str) -> Deadline:
    """A ``[deadlines]`` entry; what it leaves out keeps ``default`` (the kind's)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = {"hours": value}
    if not isinstance(value, dict):
        raise ConfigError(f'{where}: expected a number of hours or {{ hours = 48, at = "20:00" }}')
    known = {"hours", "at", "days", "grace", "early", "remind"}
    unknown = set(value) - known
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {sorted(unknown)[0]!r}; use {', '.join(sorted(known))}"
        )
    given: dict[str, Any] = {}

    def number(key: str, low: float, high: float, unit: str) -> None:
        if key not in value:
            return
        got = value[key]
        if not isinstance(got, (int, float)) or isinstance(got, bool) or not low <= got <= high:
            raise ConfigError(f"{where}: {key}: expected {unit} from {low:g} to {high:g}")
        given[key] = float(got)

    number("hours", 0.0, 24 * 60, "a number of hours")
    if given.get("hours") == 0:
        raise ConfigError(f"{where}: hours must be more than 0 and at most 1440")
    at = value.get("at")
    if at is not None and (not isinstance(at, str) or not _TIME.match(at)):
        raise ConfigError(f'{where}: at: expected a time of day "HH:MM", got {at!r}')
    if at is not None:
        given["at"] = at
    if "days" in value:
        days_value = value["days"]
        if (
            not isinstance(days_value, list)
            or not days_value
            or any(not isinstance(d, str) or d.lower()[:3] not in _DAYS for d in days_value)
        ):
            raise ConfigError(f'{where}: days: expected weekdays such as ["mon", "wed", "fri"]')
        given["days"] = tuple(sorted({_DAYS.index(d.lower()[:3]) for d in days_value}))
    number("grace", 0.0, 24 * 14, "hours")
    number("early", 0.0, 24 * 60, "minutes")
    number("remind", 0.0, 24 * 14, "hours")
    return dataclasses.replace(default, **given)


def _address(value: object, where: str) -> str:
    if not isinstance(value, str) or not _ADDRESS.match(value.strip()):
        raise ConfigError(f'{where}: expected an email address such as "alice@example.org"')
    return value.strip().lower()


def _player(power: str, value: object, where: str) -> PlayerConfig:
    if isinstance(value, str):
        return PlayerConfig(power, _address(value, where))
    if not isinstance(value, dict):
        raise ConfigError(f'{where}: expected "address" or {{ address = "...", password = "..." }}')
    unknown = set(value) - {"address", "password", "timezone", "takeover"}
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {sorted(unknown)[0]!r}; use address, password, timezone, "
            "takeover"
        )
    password = value.get("password")
    if password is not None and (not isinstance(password, str) or len(password) < 4):
        raise ConfigError(f"{where}: password: expected text of at least 4 characters")
    takeover = value.get("takeover")
    if takeover is not None and (
        not isinstance(takeover, str)
        or not 8 <= len(takeover) <= MAX_WORD_LENGTH
        or len(takeover.split()) != 1
    ):
        # A new player types it in a SIGNON line: one word, within SET PASSWORD's limits
        # (judge.services.passwords, which this module may not import).
        raise ConfigError(
            f"{where}: takeover: expected one word of 8 to {MAX_WORD_LENGTH} characters "
            "(the password a new player takes the seat over with once it is open)"
        )
    zone = value.get("timezone")
    return PlayerConfig(
        power,
        _address(value.get("address"), f"{where}: address"),
        password,
        _zone(zone, f"{where}: timezone") if zone is not None else None,
        takeover,
    )
