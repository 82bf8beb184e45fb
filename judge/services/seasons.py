"""Playing the phase at its deadline: one phase in a standard game; in a two-season game
(house rule 3.1) the whole season, its moves then the retreats and (in Autumn) the
adjustments the players sent with them (:func:`judge.engine.seasons.adjudicate_season`),
reported in one results mail."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy.orm import Session

from judge.db import queries
from judge.db.models import Game
from judge.engine.adjudicator import Adjudication, adjudicate
from judge.engine.conditional import Item, parse_blocks
from judge.engine.document import adjudication_to_document
from judge.engine.phases import Phase, PhaseKind
from judge.engine.position import Position
from judge.engine.rules import Rules
from judge.engine.seasons import adjudicate_season
from judge.presenters import results_report
from judge.services import future_orders
from judge.services.ahead import APPLIED, phase_name, tell
from judge.services.phase_sections import is_two_season, season_phases

__all__ = ["Played", "play", "season_phases"]


@dataclass(frozen=True)
class Played:
    """What processing one deadline played.

    ``outcome``: the whole as one adjudication (``before`` the position processed,
    ``position`` the next phase's, ``winner``); ``first``: the phase played first (the
    season's moves), which the press releases are decided against; ``report``: the
    results text; ``document``: what the phase record keeps; ``private``: by
    ``Player.id``, lines for that player's copy of the results alone; ``used``: the
    phases whose rows sent ahead the play read, which processing retires (a PREVIEW
    leaves them pending).
    """

    outcome: Adjudication
    first: Adjudication
    report: str
    document: dict[str, Any]
    skipped: tuple[Phase, ...]
    private: dict[int, list[str]] = field(default_factory=dict)
    used: tuple[str, ...] = ()


def play(
    session: Session,
    game: Game,
    seq: int,
    position: Position,
    orders: Mapping[str, list[str]],
    rules: Rules,
) -> Played:
    """Adjudicate the game's current phase (number ``seq``, starting at ``position``) with
    ``orders``: the phase alone, or in a two-season game's movement phase the season.
    Stores nothing: the caller retires the rows of ``Played.used`` when it keeps the
    outcome (PROCESS), and leaves them when it does not (PREVIEW)."""
    if not is_two_season(game) or position.phase.kind is not PhaseKind.MOVEMENT:
        outcome = adjudicate(position, orders, rules)
        report = results_report(game.name, seq, outcome)
        return Played(outcome, outcome, report, adjudication_to_document(outcome), outcome.skipped)
    return _season(session, game, seq, position, orders, rules)


def _season(
    session: Session,
    game: Game,
    seq: int,
    position: Position,
    orders: Mapping[str, list[str]],
    rules: Rules,
) -> Played:
    """The two-season game's season: the moves, then the season's own rows (its retreats,
    and in Autumn the year's adjustments) by power, each read again into its items; the
    rows are to retire, used or not (``Played.used``)."""
    phases = season_phases(position.phase)
    players = {p.id: p for p in queries.players_of(session, game.id)}
    ahead: dict[PhaseKind, dict[str, list[Item]]] = {}
    private: dict[int, list[str]] = {}
    for kind, phase in phases.items():
        for row in future_orders.due(session, game, phase.code):
            player = players[row.player_id]
            if player.status not in APPLIED:
                continue  # the seat is open: nobody now holding it gave them
            try:
                items = parse_blocks(row.lines, position.map)
            except ValueError as err:
                # Checked when received: only a changed judge could fail here.
                tell(
                    private,
                    player.id,
                    [f"Your orders for {phase_name(phase)} were not used: {err}"],
                )
                continue
            ahead.setdefault(kind, {}).setdefault(player.power, []).extend(items)
    season = adjudicate_season(position, orders, ahead, rules)
    by_power = {p.power: p.id for p in players.values()}
    for power, notes in season.notes.items():
        if notes and power in by_power:
            tell(private, by_power[power], notes)
    moves = season.steps[0]
    report = "\n\n".join(results_report(game.name, seq, step) for step in season.steps)
    document = {
        **adjudication_to_document(moves),
        "steps": [adjudication_to_document(step) for step in season.steps],
    }
    skipped = tuple(p for step in season.steps for p in step.skipped)
    whole = replace(moves, position=season.position, winner=season.winner, skipped=skipped)
    used = tuple(p.code for p in phases.values())
    return Played(whole, moves, report, document, skipped, private, used)
