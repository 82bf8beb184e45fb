"""A proposal's terms (:class:`judge.engine.votes.Terms`) as stored, in words, and as the
:class:`~judge.presenters.Ending` a passed proposal ends the game with."""

from __future__ import annotations

from typing import Any

from judge.engine.phases import Phase
from judge.engine.votes import Terms, TermsKind
from judge.presenters import Ending, EndingKind, and_list

__all__ = ["places_text", "terms_ending", "terms_from_json", "terms_text", "terms_to_json"]


def terms_to_json(terms: Terms) -> dict[str, Any]:
    """``terms`` as ``proposals.terms`` keeps them.

    >>> terms_to_json(Terms.draw(["France", "Austria"]))
    {'kind': 'draw', 'ranks': [['Austria', 1], ['France', 1]]}
    """
    return {"kind": terms.kind.value, "ranks": [[power, place] for power, place in terms.ranks]}


def terms_from_json(data: dict[str, Any]) -> Terms:
    """The inverse of :func:`terms_to_json`."""
    ranks = tuple((str(power), int(place)) for power, place in data["ranks"])
    return Terms(TermsKind(data["kind"]), ranks)


def _places(terms: Terms) -> tuple[tuple[int, tuple[str, ...]], ...]:
    places: dict[int, list[str]] = {}
    for power, place in terms.ranks:
        places.setdefault(place, []).append(power)
    return tuple((place, tuple(powers)) for place, powers in sorted(places.items()))


def places_text(places: tuple[tuple[int, tuple[str, ...]], ...]) -> str:
    """Ranked places in a line, as a proposal's terms and LIST's finished game say them.

    >>> places_text(((1, ("France",)), (2, ("Austria", "England"))))
    '1. France; 2. Austria and England'
    """
    return "; ".join(f"{place}. {and_list(list(powers))}" for place, powers in places)


def terms_text(terms: Terms) -> str:
    """The terms in words, as announcements and LIST give them.

    >>> terms_text(Terms.draw(["France", "Austria", "England"]))
    'a draw among Austria, England and France'
    >>> terms_text(Terms.concede("France"))
    'a concession to France'
    >>> terms_text(Terms.result({"France": 1, "England": 2, "Austria": 2}))
    'a result: 1. France; 2. Austria and England'
    """
    if terms.kind is TermsKind.DRAW:
        return f"a draw among {and_list(sorted(terms.powers))}"
    if terms.kind is TermsKind.CONCEDE:
        (winner,) = terms.powers
        return f"a concession to {winner}"
    return f"a result: {places_text(_places(terms))}"


def terms_ending(terms: Terms, phase: Phase) -> Ending:
    """The ending a passed proposal on ``terms``, put in ``phase``, gives the game."""
    kind: EndingKind = {
        TermsKind.DRAW: "draw",
        TermsKind.CONCEDE: "concession",
        TermsKind.RESULT: "result",
    }[terms.kind]  # type: ignore[assignment]
    return Ending(kind, phase.code, phase.describe(), _places(terms))
