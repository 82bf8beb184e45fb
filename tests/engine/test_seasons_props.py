"""The two-season year's engine against the phase-by-phase engine, over random games.

A season played at one deadline (:func:`judge.engine.seasons.adjudicate_season`) with the
retreats and adjustments given ahead as the very orders a player gave in each phase must
come out exactly as the phases played one by one: the same steps, positions, results and
refusals.  The games come from the seeded random player of ``benchmarks/random_games.py``
(its retreats are always of dislodged units, and its removals always ordered, so house
rules 3.1 and 3.5 do not change anything here); Hypothesis chooses the seed.  House rule
3.4 does: a removal of "A Mos" is the army that was in Moscow when the season began,
which the phase engine does not know; a season whose notes say 3.4 read a removal so is
compared up to its adjustments, and the rewrite is checked to name the unit that moved.
"""

from __future__ import annotations

import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import ROOT

from judge.engine.adjudicator import Adjudication
from judge.engine.conditional import Item, parse_blocks
from judge.engine.phases import PhaseKind
from judge.engine.seasons import adjudicate_season

sys.path.insert(0, str(ROOT))  # for the benchmarks package

from benchmarks.random_games import PhaseRecord, play_game

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def same(a: Adjudication, b: Adjudication) -> bool:
    """Whether two adjudications agree (refusals by power, text, code and message)."""
    return (
        a.before == b.before
        and a.position == b.position
        and a.position.dislodged == b.position.dislodged
        and a.results == b.results
        and a.destroyed == b.destroyed
        and a.winner == b.winner
        and [(r.power, r.text, r.code, r.message) for r in a.rejected]
        == [(r.power, r.text, r.code, r.message) for r in b.rejected]
    )


def seasons(game: list[PhaseRecord]) -> list[list[PhaseRecord]]:
    """The game's phases cut into seasons: a movement phase and the phases up to the next."""
    out: list[list[PhaseRecord]] = []
    for record in game:
        if record.position.phase.kind is PhaseKind.MOVEMENT:
            out.append([record])
        else:
            out[-1].append(record)
    return out


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS)
def test_a_season_at_one_deadline_plays_as_its_phases_one_by_one(seed: int) -> None:
    game = play_game(seed, last_year=1904)
    for season in seasons(game):
        moves, later = season[0], season[1:]
        ahead: dict[PhaseKind, dict[str, list[Item]]] = {}
        for record in later:
            kind = record.position.phase.kind
            for power, texts in record.texts.items():
                ahead.setdefault(kind, {})[power] = parse_blocks(texts, record.position.map)
        out = adjudicate_season(moves.position, moves.orders, ahead)
        assert len(out.steps) == len(season), (seed, moves.phase)
        rewritten = [n for notes in out.notes.values() for n in notes if "rule 3.4" in n]
        for step, record in zip(out.steps, season, strict=True):
            if rewritten and record.position.phase.kind is PhaseKind.ADJUSTMENT:
                # 3.4: each rewrite names a unit of the power that stood elsewhere.
                assert all("at the start of the season, now in" in n for n in rewritten)
                continue
            assert same(step, record.adjudication), (seed, record.phase)
