"""PREVIEW (the njudge's PREDICT): the game master sees what processing the current
phase would give with the orders as they stand, and nothing is stored.

The adjudication is :func:`judge.services.games.adjudicate_current`, the one PROCESS
runs (in a two-season game the whole season, with the rows sent ahead for it, which stay
pending); unlike :func:`~judge.services.games.process_game` nothing of it is written: no phase
record, no results, no missed phase counted, no mail.  The text is for the game master's
reply only.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from judge.db import queries
from judge.db.models import Game, GameStatus, PlayerStatus
from judge.presenters import and_list, next_phase_text
from judge.render import fill
from judge.services.errors import ServiceError
from judge.services.games import adjudicate_current, current_phase, no_moves_received

__all__ = ["Preview", "preview"]


@dataclass(frozen=True)
class Preview:
    """What processing the current phase now would give.

    ``phase`` the phase's code; ``report`` its results in the results mail's layout;
    ``next_phase`` the phase that would follow (None when a power would win);
    ``winner`` that power; ``missing`` the active powers that owe orders and gave
    none (a missed phase each, their units holding).
    """

    phase: str
    report: str
    next_phase: str | None
    winner: str | None
    missing: tuple[str, ...]

    def text(self, game_name: str) -> str:
        """The preview as the game master's reply shows it."""
        lines = [
            f"Preview of {game_name} {self.phase}, with the orders as they stand now:",
            "",
            self.report,
            "",
        ]
        if self.missing:
            powers = and_list(list(self.missing))
            lines.append(fill(f"No orders from {powers}: processed now, that is a missed phase."))
        if self.winner is not None:
            lines.append(f"Processed now, the game would end: {self.winner} would win.")
        elif self.next_phase is not None:
            lines.append(f"The next phase of '{game_name}' would be {self.next_phase}.")
        lines.append("Nothing was stored, and nobody else was sent this preview.")
        return "\n".join(lines)


def preview(session: Session, game: Game) -> Preview:
    """The preview of ``game``'s current phase; raises ServiceError for a game with no
    phase to process (not started, or over)."""
    if game.status == GameStatus.FORMING:
        raise ServiceError(f"game {game.name} has not started: there is no phase to preview")
    if game.status == GameStatus.FINISHED:
        raise ServiceError(f"game {game.name} is over: there is no phase to preview")
    record = current_phase(session, game)
    if record is None or record.processed_at is not None:
        raise ServiceError(f"game {game.name} has no phase to preview")
    position, orders, rules, played = adjudicate_current(session, game, record)
    outcome = played.outcome
    active = [p.power for p in queries.players_of(session, game.id, status=PlayerStatus.ACTIVE)]
    missing = no_moves_received(position, rules, orders, active)
    order = {power: index for index, power in enumerate(position.map.powers)}
    return Preview(
        phase=position.phase.code,
        report=played.report,
        next_phase=None if outcome.winner else next_phase_text(outcome.position.phase),
        winner=outcome.winner,
        missing=tuple(sorted(missing, key=lambda p: order.get(p, len(order)))),
    )
