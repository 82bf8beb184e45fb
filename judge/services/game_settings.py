"""A game's settings and rules as typed values, read from what is stored with the game.

The game's row keeps them as JSON (``Game.settings``, ``Game.rules``); the services never
read those dicts themselves but ask here, so that each default is written once (on
:class:`~judge.config.GameSettings` and :class:`~judge.engine.rules.Rules`) and what older
judges stored reads back the same.  Time zones are resolved here too: a game that names no
zone uses the judge's default (``[judge] timezone``), read now rather than copied into the
game, so changing judge.toml moves every such game along; a player who names none uses
the game's.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from judge.config import (
    Deadline,
    Endgame,
    GameSettings,
    ObserverPress,
    Press,
    Year,
    rules_from_dict,
    settings_from_json,
)
from judge.db.models import Game, Player
from judge.engine.phases import Phase, PhaseKind
from judge.engine.rules import Rules
from judge.services.context import Judge

__all__ = [
    "endgame_text",
    "game_rules",
    "game_settings",
    "game_zone",
    "phase_deadline",
    "player_zone",
    "press_text",
    "year_text",
]


#: The settings last read from each stored dict, by the dict's id, with the dict itself
#: (so that its id is not given to another dict while the entry lives): a phase's
#: processing asks a game's settings some twenty times, and reading the JSON is the
#: costly part.  A stored dict is never changed in place (``Game.settings`` is saved only
#: when a new dict is assigned), and :class:`GameSettings` is frozen.
_READ: OrderedDict[int, tuple[Mapping[str, Any], GameSettings]] = OrderedDict()
_READ_MAX = 1024
_READ_LOCK = threading.Lock()
_DEFAULT_SETTINGS = settings_from_json({})


def game_settings(game: Game) -> GameSettings:
    """The game's settings (press, time zone, deadlines, ...), defaults filled in."""
    data = game.settings
    if not data:
        return _DEFAULT_SETTINGS
    with _READ_LOCK:
        hit = _READ.get(id(data))
        if hit is not None and hit[0] is data:
            return hit[1]
    read = settings_from_json(data)
    with _READ_LOCK:
        _READ[id(data)] = (data, read)
        while len(_READ) > _READ_MAX:
            _READ.popitem(last=False)
    return read


def game_rules(game: Game) -> Rules:
    """The game's rule options, defaults filled in."""
    return rules_from_dict(game.rules or {})


def game_zone(game: Game, judge: Judge) -> str:
    """The game's time zone: its own, or the judge's default when it names none."""
    return game_settings(game).timezone or judge.settings.timezone


def player_zone(game: Game, player: Player, judge: Judge) -> str:
    """The player's time zone: their own (``SET TIMEZONE``, the game file), or the
    game's (:func:`game_zone`)."""
    return player.timezone or game_zone(game, judge)


def phase_deadline(game: Game) -> Deadline:
    """The deadline settings for the kind of the game's current phase (movement before
    the game starts)."""
    kind = Phase.parse(game.phase).kind if game.phase else PhaseKind.MOVEMENT
    return game_settings(game).deadline(kind)


#: The press kinds in the njudge's words, with what a press that says neither WHITE nor
#: GREY is.
_PRESS_KINDS = {
    Press.NONE: "none (only to and from the game master)",
    Press.WHITE: "white",
    Press.GREY: "grey",
    Press.WHITE_GREY: "white/grey (white by default)",
    Press.GREY_WHITE: "grey/white (grey by default)",
    Press.FAKE: "fake (white by default; grey, faked senders and faked recipients allowed)",
}
_OBSERVER_PRESS = {
    ObserverPress.ANY: "any",
    ObserverPress.BROADCAST: "broadcasts only",
    ObserverPress.NONE: "none (only to the game master)",
}


def press_text(settings: GameSettings) -> str:
    """The game's press settings in a line, as LIST and the game-start mails show them:
    the kind, partial press or not, the observers' press, and the game master reading
    all press when the game says so ("white/grey (white by default), partial allowed;
    observers: any")."""
    kind = _PRESS_KINDS[settings.press]
    if settings.press is Press.NONE:
        return kind
    partial = "partial allowed" if settings.partial_press else "no partial (broadcasts only)"
    text = f"{kind}, {partial}; observers: {_OBSERVER_PRESS[settings.observer_press]}"
    if settings.master_reads_press:
        text += "; the game master reads all press"
    return text


def endgame_text(settings: GameSettings) -> str:
    """How the players may end the game by agreement, in a line, as LIST shows it
    ("draw votes (SET DRAW; every survivor is in the draw) and concessions (SET
    CONCEDE)")."""
    if settings.endgame is Endgame.NONE:
        return "by a solo only (no draws or concessions by vote)"
    if settings.endgame is Endgame.HOUSE:
        counts = "the counts announced" if settings.vote_counts else "passed or defeated only"
        return (
            "proposals put to a vote (PROPOSE, then VOTE <n> YES, NO or ABSTAIN; house "
            f"rules, section 8), {counts}"
        )
    if settings.dias:
        draw = "draw votes (SET DRAW; every survivor is in the draw)"
    else:
        draw = "draw votes naming the powers of the draw (SET DRAW <powers>)"
    text = (
        f"{draw} and concessions (SET CONCEDE <power>)"
        if settings.concessions
        else f"{draw}; no concessions"
    )
    if not settings.secret_votes:
        text += "; votes shown to everyone"
    return text


def year_text(settings: GameSettings) -> str | None:
    """How the game's year is played, in a line, as LIST and the game-start mails show
    it; ``None`` for the standard year (movement, retreats and adjustments, each at its
    own deadline), which they do not mention."""
    if settings.year is Year.STANDARD:
        return None
    return (
        "two seasons (house rule 3.1): one deadline each Spring and Autumn; a season's "
        "retreats (RETREATS) and, in Autumn, the year's builds and removals (BUILDS) are "
        "sent with its moves"
    )
