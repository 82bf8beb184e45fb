"""Press releases (house rules 10.1-10.3; the njudge's POSTALPRESS): press held by the
judge and published in the next results, in the order received, when its conditions on
the phase's orders hold (``PRESS PUBLISH IF A Par-Bur SUCCEEDS``), under a dateline of
the sender's choosing (``DATELINE Vienna``) except the reserved ones: the game master's
(``master_dateline``) and each power's capital and "<Power> (Govt.)"
(:mod:`judge.services.datelines`).

:func:`hold` checks and stores a release (state "held"); :func:`publish`, called by
:func:`judge.services.games.process_game` once a phase is adjudicated, decides each held
release against the phase's results (:func:`judge.engine.conditions.order_outcome`) and
returns what the results mail shows (:class:`Releases`).  A rollback leaves releases as
they are: one still held stays held for the next results, one published in a phase that
was undone stays published (the players have read it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy.orm import Session

from judge.db import queries
from judge.db.models import Game, GameStatus, PressRecord, PressState
from judge.engine.adjudicator import Adjudication
from judge.engine.conditions import order_outcome
from judge.engine.errors import OrderError
from judge.engine.notation import parse_order
from judge.services import press, press_signing
from judge.services.audience import Recipient
from judge.services.datelines import MASTER, MAX_DATELINE_CHARS, dateline_key, reserved_for
from judge.services.game_settings import game_settings
from judge.services.press import PressRefused, PressRequest, Sender
from judge.services.press_signing import sender_shown

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = [
    "Published",
    "Releases",
    "genuine",
    "hold",
    "publish",
]

_DATELINE_WORD = "DATELINE"


@dataclass(frozen=True)
class Published:
    """A release as the results show it: its ``dateline`` (None: none), ``genuine`` when
    the dateline is reserved for its sender, ``sender`` as shown ("France", "the game
    master", "an observer"; None: not signed) and its ``text``."""

    dateline: str | None
    genuine: bool
    sender: str | None
    text: str


@dataclass(frozen=True)
class Withheld:
    """A release whose conditions did not hold: its sender (``role``, ``power``,
    ``address``) is told in their own copy of the results (``notice``)."""

    role: str
    power: str | None
    address: str
    notice: str

    def told(self, reader: Recipient) -> bool:
        """Whether ``reader`` is this release's sender."""
        if self.role == "power":
            return reader.power is not None and reader.power == self.power
        if self.role == "master":
            # The master who also plays a power reads the results once, as that power.
            master = reader.power is None and not reader.observer
            return master or reader.address.lower() == self.address
        return reader.observer and reader.address.lower() == self.address


@dataclass(frozen=True)
class Releases:
    """What the results of a phase show of the press releases: those ``published``, in
    the order received, and those ``withheld``, each told to its sender only."""

    published: tuple[Published, ...] = ()
    withheld: tuple[Withheld, ...] = ()

    def notices_for(self, reader: Recipient) -> list[str]:
        """What ``reader`` alone is told: their own releases withheld."""
        return [w.notice for w in self.withheld if w.told(reader)]


def hold(conversation: Conversation, request: PressRequest) -> None:
    """Check the release ``request`` and hold it for the next results, confirming it in
    the reply; or refuse it (:func:`judge.services.press.refuse`), storing nothing."""
    try:
        record, sender = _checked(conversation, request)
    except PressRefused as err:
        press.refuse(conversation, request.line, request.body, str(err))
        return
    conversation.session.add(record)
    conversation.reply.actions.append(_confirmation(record, sender.settings.master_dateline))


def _checked(conversation: Conversation, request: PressRequest) -> tuple[PressRecord, Sender]:
    """The release ``request`` asks for, as a row to store, and its sender; raises
    PressRefused."""
    sender = press.sender_of(conversation)
    game = sender.game
    if game.status == GameStatus.FORMING or game.phase is None:
        raise PressRefused(
            f"{game.name} has not started yet: a press release is published with a "
            "phase's results; send it once the game has begun"
        )
    if game.status == GameStatus.FINISHED:
        raise PressRefused(f"{game.name} is over: no more results are published")
    if request.fake or request.fake_as is not None or request.fake_to is not None:
        raise PressRefused(
            "a press release cannot be faked: it is published signed as the game's press "
            "allows; leave out FAKE"
        )
    to = request.to
    if to is not None and not (to.every and not to.but):
        raise PressRefused(
            "a press release is published to everyone: write PRESS PUBLISH (or POSTALPRESS) "
            "without TO"
        )
    reason = press.kind_allows(sender, broadcast=True, to_master_only=False)
    if reason is not None:
        raise PressRefused(reason)
    signed, shown_from = _signing(sender, request.signed)
    dateline, body = _dateline(request.body)
    if dateline is not None:
        _check_dateline(sender, dateline)
    position = conversation.position(game)
    for condition in request.conditions:
        try:
            parse_order(condition.order, position.map, position.phase.kind)
        except OrderError as err:
            raise PressRefused(
                f"IF {condition.order} {_outcome_word(condition.succeeds)}: {err}; a "
                "condition names an order of this phase: IF A Par-Bur SUCCEEDS"
            ) from None
    press.check_limits(conversation, sender, tuple(body))
    record = PressRecord(
        game_id=game.id,
        seq=game.seq,
        phase=game.phase,
        sender_role=sender.role,
        sender_power=sender.power,
        sender_address=sender.address,
        signed=signed,
        shown_from=shown_from,
        shown_to="all",
        recipients={
            "powers": list(position.map.powers),
            "master": True,
            "observers": True,
            "broadcast": True,
        },
        body="\n".join(body).strip("\n"),
        release=True,
        dateline=dateline,
        conditions={
            "all": [{"order": c.order, "succeeds": c.succeeds} for c in request.conditions]
        },
        state=PressState.HELD,
        inbound_id=conversation.inbound_id,
        created_at=conversation.now,
    )
    return record, sender


def _outcome_word(succeeds: bool) -> str:
    return "SUCCEEDS" if succeeds else "FAILS"


def _signing(sender: Sender, asked: str | None) -> tuple[str, str | None]:
    """How a release is signed ("white" or "grey") and the sender its readers are shown:
    as the game's press allows, WHITE or GREY as for press
    (:func:`~judge.services.press_signing.is_grey`); the master's are the master's."""
    if sender.role == "master":
        return "white", "Master"
    if press_signing.is_grey(sender, asked):
        return "grey", None
    return "white", sender.power if sender.role == "power" else "Observer"


def _dateline(lines: Sequence[str]) -> tuple[str | None, list[str]]:
    """The dateline of a release (its first line that is not blank, when that is
    ``DATELINE <place>``) and the lines of its text without it."""
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        word, _, place = line.strip().partition(" ")
        if word.rstrip(":").upper() != _DATELINE_WORD:
            break
        place = " ".join("".join(c for c in place if c.isprintable()).split())
        if not place:
            raise PressRefused(
                "DATELINE: name the place after it, on the release's first line: DATELINE Munich"
            )
        if len(place) > MAX_DATELINE_CHARS:
            raise PressRefused(
                f"DATELINE: a dateline is at most {MAX_DATELINE_CHARS} characters long; "
                f"this one is {len(place):,}"
            )
        return place, list(lines[index + 1 :])
    return None, list(lines)


def _check_dateline(sender: Sender, dateline: str) -> None:
    """Refuse a reserved dateline to any sender it is not reserved for (the game master
    may use any)."""
    if sender.role == "master":
        return
    key = dateline_key(dateline)
    if "genuine" in key or "guarantee" in key:
        # Only the judge says a release is genuine, on a line of its own.
        raise PressRefused(
            f"the dateline {dateline} claims to be genuine; only the judge marks a release "
            "genuine (a capital's or a government's dateline used by its own power)"
        )
    owner = reserved_for(dateline, sender.settings.master_dateline)
    if owner is None or (sender.role == "power" and owner == sender.power):
        return
    whose = "the game master" if owner == MASTER else owner
    raise PressRefused(
        f"the dateline {dateline} is reserved for {whose}; choose another dateline, or none"
    )


def genuine(record: PressRecord, master_dateline: str) -> bool:
    """Whether the release's dateline is reserved for its own sender: guaranteed genuine."""
    if record.dateline is None:
        return False
    owner = reserved_for(record.dateline, master_dateline)
    if record.sender_role == "master":
        return owner == MASTER
    return owner is not None and owner == record.sender_power and record.sender_role == "power"


def _conditions(record: PressRecord) -> list[tuple[str, bool]]:
    return [(c["order"], bool(c["succeeds"])) for c in (record.conditions or {}).get("all", [])]


def _confirmation(record: PressRecord, master_dateline: str) -> str:
    """What the sender's reply says of a release held."""
    lines = [
        f"Press release held for the results of {record.phase}, to be published to "
        f"everyone ({len(record.body):,} characters):"
    ]
    if record.sender_role == "master":
        lines.append("  signed: from the game master")
    elif record.shown_from is None:
        lines.append("  signed: not signed (grey)")
    else:
        lines.append(f"  signed: {record.shown_from} (white)")
    if record.dateline is not None:
        own = genuine(record, master_dateline)
        mark = " (reserved for you: published as genuine)" if own else ""
        if own and record.shown_from is None and record.sender_role == "power":
            # The genuine mark is the power's name in all but letters: say so to the sender.
            mark += f"; it tells every reader that {record.sender_power} sent it, grey or not"
        lines.append(f"  dateline: {record.dateline}{mark}")
    conditions = _conditions(record)
    if conditions:
        said = ", and ".join(
            f"{order} {'succeeds' if succeeds else 'fails'}" for order, succeeds in conditions
        )
        lines.append(f"  published only if: {said}")
    return "\n".join(lines)


# -- publishing ---------------------------------------------------------------------


def publish(session: Session, game: Game, seq: int, outcome: Adjudication) -> Releases:
    """Decide every release of ``game`` still held, in the order received, against the
    results of the phase just adjudicated (``seq``, ``outcome``): each is published
    (state "published") when all its conditions hold, else withheld (state "withheld",
    ``outcome`` saying which condition failed).  Returns what the results show."""
    master_dateline = game_settings(game).master_dateline
    before = outcome.before
    published: list[Published] = []
    withheld: list[Withheld] = []
    for record in queries.held_releases(session, game.id):
        record.published_seq = seq
        failed = _failed_condition(record, outcome)
        if failed is not None:
            record.state = PressState.WITHHELD
            record.outcome = failed
            withheld.append(
                Withheld(
                    record.sender_role, record.sender_power, record.sender_address,
                    _withheld_notice(record, before.phase.code, failed),
                )
            )  # fmt: skip
            continue
        record.state = PressState.PUBLISHED
        published.append(
            Published(
                dateline=record.dateline,
                genuine=genuine(record, master_dateline),
                sender=sender_shown(record.shown_from),
                text=record.body,
            )
        )
    return Releases(tuple(published), tuple(withheld))


def _failed_condition(record: PressRecord, outcome: Adjudication) -> str | None:
    """The first condition of ``record`` that does not hold, in words (None: all hold)."""
    position = outcome.before
    for order_text, succeeds in _conditions(record):
        try:
            order = parse_order(order_text, position.map, position.phase.kind)
        except OrderError:
            return f"{order_text} is not an order of {position.phase.code}"
        result = order_outcome(order, outcome.results)
        if result is None:
            return f"{order_text} was not ordered in {position.phase.code}"
        if result != succeeds:
            did = "failed" if succeeds else "succeeded"
            return f"{order_text} {did}"
    return None


def _withheld_notice(record: PressRecord, phase: str, failed: str) -> str:
    """What the sender of a withheld release is told in their copy of the results."""
    first = next((line.strip() for line in record.body.split("\n") if line.strip()), "")
    if len(first) > _EXCERPT_CHARS:
        first = first[:_EXCERPT_CHARS].rstrip() + "..."
    dateline = f" (dateline {record.dateline})" if record.dateline else ""
    return (
        f'Your press release{dateline} beginning "{first}" was not published with the '
        f"results of {phase}: {failed}."
    )


#: Of a withheld release, its sender is reminded of this many characters of its start.
_EXCERPT_CHARS = 40
