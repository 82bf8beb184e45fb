"""Mail templates: each rendered with a fixed context and compared to a golden file.

Run with ``UPDATE_GOLDEN=1`` to rewrite the golden files after an intended change, then
read the diff before committing it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import jinja2
import pytest
from support import DATA

from judge.config import GameSettings, Year
from judge.engine import Phase, Position, adjudicate, standard_map
from judge.engine.votes import Tally
from judge.presenters import (
    CentreYear,
    Ending,
    and_list,
    centre_history_report,
    centre_report,
    format_deadline,
    phase_heading,
    position_report,
    results_report,
    units_report,
)
from judge.render import TEMPLATE_DIR, RenderedMail, Renderer, reply_subject
from judge.services.game_settings import year_text
from judge.services.listings import GameListing, ScheduleLine, SeatLine
from judge.services.mailings import FinalSeat, MasterCopy, Seat
from judge.services.releases import Published

GOLDEN = DATA / "golden" / "render"
DEADLINE = datetime(2026, 11, 28, 20, 0, tzinfo=UTC)
IN_LONDON = format_deadline(DEADLINE, "Europe/London")
IN_NEW_YORK = format_deadline(DEADLINE, "America/New_York")


def check_golden(mail: RenderedMail, name: str) -> None:
    """Compare ``Subject: ...``, a blank line and the body with ``golden/render/<name>``."""
    text = f"Subject: {mail.subject}\n\n{mail.body}"
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no golden file {path}: run with UPDATE_GOLDEN=1 to create it"
    assert text == path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer()


#: How LIST and the game-start mails name the two-season year (house rule 3.1).
TWO_SEASON = year_text(GameSettings(year=Year.TWO_SEASON))


def gamestart_context(**changes: object) -> dict[str, object]:
    context: dict[str, object] = {
        "judge_name": "USDP",
        "judge_address": "judge@example.org",
        "game_name": "winter01",
        "variant": "Standard",
        "rules_text": "2023 rulebook",
        "press": "white/grey (white by default), partial allowed; observers: any",
        "endings": (
            "draw votes (SET DRAW; every survivor is in the draw) and concessions "
            "(SET CONCEDE <power>)"
        ),
        "year": None,
        "power": "England",
        "password": "k3ttle-drum",
        "signon_line": "SIGNON Ewinter01 k3ttle-drum",
        "deadline_game": IN_LONDON,
        "deadline_player": IN_NEW_YORK,
        "phase_text": "Movement for Spring of 1901",
        "position_text": position_report(Position.initial(standard_map())),
        "master_address": "gm@example.org",
        "replacement": False,
        "roster": ROSTER,
    }
    context.update(changes)
    return context


#: The players of a game that is not anonymous, as the game-start mails list them.
ROSTER = [
    Seat(power, f"{power.lower()}@example.org", generated=power == "Turkey")
    for power in standard_map().powers
]


#: A two-season Autumn's pending orders, as the confirmation lists them.
CONFIRM_AHEAD = [
    "Retreats this season, if dislodged:\n  A Mun-Boh  (if dislodged)",
    "Builds and removals this year, if owed:\n"
    "  Build A Par  (if owed)\n"
    "  IF Bel OWNED BY France\n"
    "    Build F Bre\n"
    "  ENDIF",
    "Orders sent ahead for Spring 1902 Movement (checked when that phase begins):\n  A Mun-Ruh",
]


def confirm_context(**changes: object) -> dict[str, object]:
    context: dict[str, object] = {
        "judge_name": "USDP",
        "game_name": "winter01",
        "variant": "Standard",
        "phase_code": "S1901M",
        "heading": phase_heading("Movement", Phase.parse("S1901M"), "winter01", 1),
        "deadline_game": IN_LONDON,
        "deadline_player": IN_NEW_YORK,
        "actions": ["Password changed."],
        "order_lines": [
            "France: Army Paris -> Burgundy.",
            "France: Fleet Brest -> English Channel.",
        ],
        "missing_lines": ["France: Army Marseilles, No Order Processed."],
        "ahead": [],
        "rejected": [
            {"line": "A Par-Bru", "reason": "'A Par-Bru': 'Bru' is not a province name on this map"}
        ],
        "ignored": ["Cheers, Bob"],
        "not_read": [],
        "complete": False,
        "wait": False,
        "error_count": 1,
        "copy_note": None,
        "subject_in": "orders for spring",
    }
    context.update(changes)
    return context


def test_gamestart_password_from_the_game_master(renderer: Renderer) -> None:
    mail = renderer.render(
        "player/gamestart.txt.j2",
        **gamestart_context(
            password=None,
            signon_line="SIGNON Ewinter01 <password>",
            deadline_player=None,
            master_address=None,
            roster=None,
        ),
    )
    check_golden(mail, "gamestart_gm_password.txt")
    assert "k3ttle" not in mail.body


def test_gamestart_for_a_replacement_player(renderer: Renderer) -> None:
    mail = renderer.render(
        "player/gamestart.txt.j2",
        **gamestart_context(replacement=True, phase_text="Movement for Fall of 1902", roster=None),
    )
    check_golden(mail, "gamestart_replacement.txt")


def test_confirm_with_errors(renderer: Renderer) -> None:
    mail = renderer.render("player/confirm.txt.j2", **confirm_context())
    assert mail.subject == "[Error Flag] Re: orders for spring"
    check_golden(mail, "confirm_errors.txt")


def test_confirm_complete_from_another_address(renderer: Renderer) -> None:
    mail = renderer.render(
        "player/confirm.txt.j2",
        **confirm_context(
            actions=[],
            missing_lines=[],
            rejected=[],
            ignored=[],
            complete=True,
            error_count=0,
            deadline_player=None,
            copy_note=(
                "This is a copy: someone signed on as France from bob@elsewhere.example. "
                "If that was not you, change your password."
            ),
            subject_in="Re: orders for spring",
        ),
    )
    assert mail.subject == "Re: orders for spring"
    check_golden(mail, "confirm_complete.txt")


def results_context() -> dict[str, object]:
    out = adjudicate(
        Position.initial(standard_map()),
        {"France": ["A Par-Bur"], "Germany": ["A Mun-Bur", "A Ber-Kie"], "England": ["F Lon-Nth"]},
    )
    return {
        "judge_name": "USDP",
        "game_name": "winter01",
        "variant": "Standard",
        "phase_code": "S1901M",
        "report": results_report("winter01", 1, out),
        "next_phase_text": out.position.phase.describe(),
        "deadline_game": IN_LONDON,
        "winner": None,
        "releases": [],
        "notices": [],
        "yours": [],
    }


def results_releases_context() -> dict[str, object]:
    """The results with press releases published, and the reader's own withheld."""
    return {
        **results_context(),
        "releases": [
            Published("Paris", True, "France", "Burgundy is French.\n\nVive la France!"),
            Published(None, False, None, "Someone is watching Kiel."),
            Published("Versailles", True, "the game master", "The Congress opens."),
        ],
        "notices": [
            'Your press release (dateline Munich) beginning "Burgundy stays free." was not '
            "published with the results of S1901M: A Mun-Bur succeeded."
        ],
    }


def test_results(renderer: Renderer) -> None:
    mail = renderer.render("all/results.txt.j2", **results_context())
    assert mail.subject == "Diplomacy results winter01 S1901M"
    check_golden(mail, "results.txt")


def test_results_end_of_game(renderer: Renderer) -> None:
    mail = renderer.render(
        "all/results.txt.j2",
        judge_name="USDP",
        game_name="winter01",
        variant="Standard",
        phase_code="F1908M",
        report="Movement results for Fall of 1908.  (winter01.023)\n\n...",
        next_phase_text=None,
        deadline_game=None,
        winner="Germany",
        releases=[],
        notices=[],
        yours=[],
    )
    assert mail.body.endswith(
        "The game 'winter01' is over: Germany has won. Thank you for playing.\n"
    )


# -- every template, with sample values, against its golden files ----------------------


def notices_context(**changes: object) -> dict[str, object]:
    """The sample the deadline notices' own tests render (tests/services/test_notices.py)."""
    from test_notices import _context  # it imports this module: read when a test runs

    return _context(**changes)


Context = Callable[[], dict[str, object]]


def sample(**values: object) -> Context:
    """The values of one sample, with the judge's and the game's names every mail shows."""
    return lambda: {"judge_name": "USDP", "game_name": "winter01", **values}


#: A house proposal's announcement (the same mail for every reader).
PROPOSAL: dict[str, object] = {
    "number": 3,
    "phase_code": "F1902M",
    "terms": "a draw among Austria, England and France",
    "note_lines": ["Three of us hold every centre that matters.", "", "Vote yes."],
    "silence": "first",
    "closes": IN_LONDON,
    "counts": False,
}
SIGNON_LOCKED: dict[str, object] = {
    "power": "England",
    "address": "england@example.org",
    "failures": 5,
    "sender": "guesser@elsewhere.example",
    "registered": True,
    "until": IN_LONDON,
}
NEW_DEADLINE: dict[str, object] = {
    "power": "England",
    "observer": False,
    "by_master": False,
    "phase_code": "F1901R",
    "deadline_game": IN_LONDON,
    "deadline_player": None,
    "reason": None,
}
SCHEDULE: dict[str, object] = {"power": "England", "observer": False, "phase_code": "F1901R"}
LISTING = GameListing(
    name="winter01", status="finished", winner="France", ending=None, ended="won by France",
    variant="Standard", edition="2000", press="none (only to and from the game master)",
    endgame="by a solo only (no draws or concessions by vote)", endgame_lines=(), nmr="wait",
    anonymous=False, observers_allowed="password",
    master_address=None, zone="Europe/London",
    schedule=(
        ScheduleLine("Movement", "72", "20:00", "Mon, Thu", "12", "10"),
        ScheduleLine("Retreat", "24", None, None, "0", "0"),
        ScheduleLine("Adjustment", "24", None, None, "0", "10"),
    ),
    phase_code=None, phase_text=None, deadline_game=None, deadline_own=None, grace_game=None,
    seats=(
        SeatLine("England", "england@example.org", "active", None),
        SeatLine("France", "a.very.long.address@example.org", "active", None),
    ),
    orders_in=0, orders_due=0, observer_count=0, observers=(), for_master=False,
)  # fmt: skip
UNDELIVERABLE: dict[str, object] = {
    "to": "bob@example.org",
    "subject": "Diplomacy results winter01 S1901M",
    "message_id": "<20261123120000.1.abc@judge.example.org>",
    "written": datetime(2026, 11, 23, 12, 0, tzinfo=UTC),
    "attempts": 1,
    "reason": "example.org:25 refused the recipient bob@example.org: 550 5.1.1 No such user",
    "refused": True,
}
EDIT_NEWS: list[dict[str, object]] = [
    {"kind": "password_reset", "power": "England", "address": "eng@example.org"},
    {
        "kind": "replacement",
        "power": "France",
        "address": "new@example.net",
        "old_address": "old@example.org",
    },
    {
        "kind": "stale_deadline",
        "deadline": IN_LONDON,
        "phase": "S1901M",
        "current_phase": "F1901M",
        "current_deadline": None,
    },
    {
        "kind": "stale_deadline",
        "deadline": IN_LONDON,
        "phase": None,
        "current_phase": "F1901M",
        "current_deadline": IN_NEW_YORK,
    },
]

PROPOSAL_RESULT: dict[str, object] = {
    "power": "England",
    "observer": False,
    "number": 3,
    "terms": "a draw among Austria, England and France",
    "phase_code": "F1902M",
    "repeat": False,
    "abstain_assent": False,
}
DEFEATED_COUNTS = Tally(
    passed=False, assent=3, dissent=2, yes=2, no=0, abstain=1, silent=1, missing=1,
    discretion=False,
)  # fmt: skip
AWAITING_COUNTS = Tally(
    passed=True, assent=5, dissent=0, yes=2, no=0, abstain=0, silent=3, missing=0,
    discretion=True,
)  # fmt: skip

#: template -> golden file (in ``golden/render``) -> its sample values.  A template with
#: no sample here, or a golden file no sample (nor :data:`CHECKED_ELSEWHERE`) uses, fails
#: a test.
SAMPLES: dict[str, dict[str, Context]] = {
    "all/late.txt.j2": {
        "late_others.txt": lambda: notices_context(power="France"),
        "late_others_waiting.txt": lambda: notices_context(
            power="France", process_game=None, process_player=None
        ),
    },
    "all/results.txt.j2": {
        "results.txt": results_context,
        "results_releases.txt": results_releases_context,
    },
    "gm/civil_disorder.txt.j2": {
        "gm_civil_disorder.txt": sample(power="Austria", address="austria@example.org")
    },
    "gm/edit_applied.txt.j2": {
        "gm_edit_applied.txt": sample(
            file_name="winter01.toml",
            changes=[
                "England: password reset",
                "France: replacement player new@example.net for old@example.org",
                f"deadline {IN_LONDON} is stale: it was for S1901M",
            ],
            news=EDIT_NEWS,
        )
    },
    "gm/edit_refused.txt.j2": {
        "gm_edit_refused.txt": sample(
            file_name="winter01.toml",
            path=Path("/srv/judge/games/winter01.toml"),
            error="winter01.toml, [deadlines.movement] hours: must be a number of hours "
            "(e.g. 48), not 'two days'\nwinter01.toml, [players] Englnd: not a power",
        )
    },
    "gm/mail_undeliverable.txt.j2": {
        "gm_mail_refused.txt": sample(**UNDELIVERABLE),
        "gm_mail_given_up.txt": sample(
            **{
                **UNDELIVERABLE,
                "attempts": 9,
                "reason": "connection to example.org:25 timed out",
                "refused": False,
            }
        ),
    },
    "gm/player_resigned.txt.j2": {
        "gm_player_resigned.txt": sample(power="Turkey", address="turkey@example.org")
    },
    "gm/signon_locked.txt.j2": {
        "gm_signon_locked.txt": sample(**SIGNON_LOCKED),
        "gm_signon_locked_master.txt": sample(
            **{**SIGNON_LOCKED, "power": None, "address": "gm@example.org", "registered": False}
        ),
    },
    "player/confirm.txt.j2": {
        "confirm_errors.txt": confirm_context,
        "confirm_wait.txt": lambda: confirm_context(wait=True, complete=True),
        "confirm_ahead.txt": lambda: confirm_context(ahead=CONFIRM_AHEAD),
    },
    "player/gamestart.txt.j2": {
        "gamestart.txt": gamestart_context,
        # The two-season year (house rule 3.1) is named; the standard year is not.
        "gamestart_two_season.txt": lambda: gamestart_context(year=TWO_SEASON),
    },
    "player/late.txt.j2": {
        "late_player.txt": notices_context,
        "late_player_waiting.txt": lambda: notices_context(process_game=None, process_player=None),
    },
    "player/new_password.txt.j2": {
        "player_new_password.txt": sample(
            power="England", password="k3ttle-drum", signon_line="SIGNON Ewinter01 k3ttle-drum"
        )
    },
    "player/copies_held.txt.j2": {
        "player_copies_held.txt": sample(
            power="England",
            copies=5,
            until=IN_LONDON,
            sender="someone@elsewhere.example",
            signon_line="SIGNON Ewinter01 <password>",
        )
    },
    "player/message_parked.txt.j2": {
        "player_message_parked.txt": sample(
            subject_in="orders for spring",
            received_at=datetime(2026, 11, 23, 13, 0, tzinfo=UTC),
            attempts=3,
        )
    },
    "player/message_too_large.txt.j2": {
        "player_message_too_large.txt": sample(
            subject_in="orders (with pictures)", size=4_718_592, limit=1_000_000
        )
    },
    "player/reminder.txt.j2": {"reminder.txt": notices_context},
    "player/replaced.txt.j2": {
        "player_replaced.txt": sample(power="England", master_address="gm@example.org"),
        "player_replaced_no_master.txt": sample(power="England", master_address=None),
        "player_replaced_taken_over.txt": sample(
            power="England", master_address="gm@example.org", taken_over=True
        ),
    },
    "player/reply.txt.j2": {
        "reply.txt": lambda: {
            "judge_name": "USDP",
            "subject_in": "help",
            "paragraphs": [
                "You are not signed on to any game.",
                "Send HELP for the list of commands.",
            ],
        }
    },
    "player/signon_locked.txt.j2": {
        "player_signon_locked.txt": sample(**{**SIGNON_LOCKED, "registered": False}),
    },
    "all/rollback.txt.j2": {
        "rollback_player.txt": lambda: rollback_context(),
        "rollback_observer_paused.txt": lambda: rollback_context(
            power=None,
            reason="",
            paused=True,
            deadline_player=None,
            undone_text="F1901M, F1901R and W1901A",
        ),
        "rollback_nothing_to_order.txt": lambda: rollback_context(
            order_lines=[], missing_lines=[], deadline_player=None
        ),
    },
    "gm/gamestart.txt.j2": {
        "gm_gamestart.txt": sample(
            roster=ROSTER,
            generated="Turkey",
            anonymous=False,
            press="white/grey (white by default), partial allowed; observers: any",
            endings=(
                "proposals put to a vote (PROPOSE, then VOTE <n> YES, NO or ABSTAIN; house "
                "rules, section 8), passed or defeated only"
            ),
            year=None,
            observers=["watcher@example.net"],
            phase_text="Movement for Spring of 1901",
            deadline_game=IN_LONDON,
        ),
        "gm_gamestart_anonymous.txt": sample(
            roster=[Seat(s.power, s.address) for s in ROSTER],
            generated="",
            anonymous=True,
            press="grey, no partial (broadcasts only); observers: broadcasts only",
            endings="by a solo only (no draws or concessions by vote)",
            year=None,
            observers=[],
            phase_text="Movement for Spring of 1901",
            deadline_game=IN_LONDON,
        ),
        "gm_gamestart_two_season.txt": sample(
            roster=ROSTER,
            generated="",
            anonymous=False,
            press="white/grey (white by default), partial allowed; observers: any",
            endings="by a solo only (no draws or concessions by vote)",
            year=TWO_SEASON,
            observers=[],
            phase_text="Movement for Spring of 1901",
            deadline_game=IN_LONDON,
        ),
    },
    "observer/gamestart.txt.j2": {
        "observer_gamestart.txt": lambda: {
            **gamestart_context(),
            "deadline_observer": IN_NEW_YORK,
            "signon_line": "OBSERVE winter01",
        },
        "observer_gamestart_anonymous.txt": lambda: {
            **gamestart_context(roster=None, master_address=None),
            "deadline_observer": None,
            "signon_line": "OBSERVE winter01",
        },
        "observer_gamestart_two_season.txt": lambda: {
            **gamestart_context(year=TWO_SEASON),
            "deadline_observer": None,
            "signon_line": "OBSERVE winter01",
        },
    },
    "all/new_deadline.txt.j2": {
        # The very words the deadline notice had as a paragraph of player/notice.txt.j2.
        "new_deadline.txt": sample(**NEW_DEADLINE),
        "new_deadline_own_zone.txt": sample(**{**NEW_DEADLINE, "deadline_player": IN_NEW_YORK}),
        "new_deadline_master.txt": sample(**{**NEW_DEADLINE, "power": None, "by_master": True}),
        "new_deadline_absence.txt": sample(
            **{
                **NEW_DEADLINE,
                "deadline_player": IN_NEW_YORK,
                "reason": f"Italy has said (SET ABSENCE) they will be away from {IN_LONDON} "
                f"to {IN_LONDON}, and the deadline fell in that time: it moves to the end "
                "of the absence.",
            }
        ),
        "new_deadline_observer.txt": sample(**{**NEW_DEADLINE, "power": None, "observer": True}),
    },
    "all/paused.txt.j2": {
        "paused.txt": sample(**SCHEDULE, deadline_game=IN_LONDON, deadline_player=IN_NEW_YORK),
        "paused_no_deadline.txt": sample(
            **{**SCHEDULE, "power": None, "observer": True},
            deadline_game=None,
            deadline_player=None,
        ),
    },
    "all/resumed.txt.j2": {
        "resumed.txt": sample(
            **SCHEDULE, fresh=False, deadline_game=IN_LONDON, deadline_player=None
        ),
        "resumed_fresh.txt": sample(
            **{**SCHEDULE, "power": None},
            fresh=True,
            deadline_game=IN_LONDON,
            deadline_player=IN_NEW_YORK,
        ),
    },
    "all/press_settings.txt.j2": {
        "press_settings.txt": sample(
            power="France",
            observer=False,
            press="grey/white (grey by default)",
            before="white, partial allowed; observers: any",
            after="grey/white (grey by default), no partial (broadcasts only); observers: "
            "broadcasts only; the game master reads all press",
        ),
        "press_settings_observer.txt": sample(
            power=None,
            observer=True,
            press="none (only to and from the game master)",
            before="white, partial allowed; observers: any",
            after="none (only to and from the game master)",
        ),
    },
    "all/grace.txt.j2": {
        "grace.txt": sample(
            **SCHEDULE,
            phase_kind="retreat",
            grace="12",
            old_grace="0",
            deadline_game=IN_LONDON,
            deadline_player=IN_NEW_YORK,
            grace_game=format_deadline(DEADLINE + timedelta(hours=12), "Europe/London"),
            grace_player=format_deadline(DEADLINE + timedelta(hours=12), "America/New_York"),
        ),
        "grace_none.txt": sample(
            **SCHEDULE,
            phase_kind="movement",
            grace="0",
            old_grace="24",
            deadline_game=IN_LONDON,
            deadline_player=None,
            grace_game=None,
            grace_player=None,
        ),
    },
    "all/listing.txt.j2": {
        # A running game's listings are checked by tests/services/test_listing.py.
        "listing_finished.txt": lambda: {
            "judge_name": "USDP",
            "game_name": "winter01",
            "listing": LISTING,
        },
        # Ended by the master: LIST says so, and an anonymous game's addresses show.
        "listing_terminated.txt": lambda: {
            "judge_name": "USDP",
            "game_name": "winter01",
            "listing": dataclasses.replace(
                LISTING,
                winner=None,
                ending="terminated",
                ended="ended by the game master with no winner",
                anonymous=True,
            ),
        },
        "listing_two_season.txt": lambda: {
            "judge_name": "USDP",
            "game_name": "winter01",
            "listing": dataclasses.replace(LISTING, year=TWO_SEASON),
        },
    },
    # Civil disorder and missing orders (issue 13).
    "player/civil_disorder.txt.j2": {
        "player_civil_disorder.txt": sample(
            power="Turkey",
            phase_code="F1901M",
            signon_line="SIGNON Twinter01 <password>",
            master_address="gm@example.org",
        ),
        "player_civil_disorder_no_master.txt": sample(
            power="Turkey",
            phase_code="W1901A",
            signon_line="SIGNON Twinter01 <password>",
            master_address=None,
        ),
    },
    "all/civil_disorder.txt.j2": {
        "all_civil_disorder.txt": sample(power="Turkey", phase_code="F1901M")
    },
    "all/back_from_disorder.txt.j2": {
        "all_back_from_disorder.txt": sample(power="Turkey", phase_code="S1902M")
    },
    "gm/late.txt.j2": {
        "gm_late.txt": lambda: {
            **notices_context(),
            "late_powers": "England and Turkey",
            "missing_lines": [
                "England: Army Belgium, no retreat ordered (it will be disbanded).",
                "Turkey: Fleet Black Sea, no retreat ordered (it will be disbanded).",
            ],
            "anonymous": False,
        },
        "gm_late_waiting_anonymous.txt": lambda: {
            **notices_context(process_game=None, process_player=None),
            "late_powers": "Turkey",
            "missing_lines": ["Turkey: Army Smyrna, No Order Processed."],
            "anonymous": True,
        },
    },
    "gm/waiting.txt.j2": {
        "gm_waiting.txt": lambda: {
            **notices_context(phase_code="F1901M", phase_text="Movement for Fall of 1901"),
            "late_powers": "England and Turkey",
            "anonymous": True,
        },
    },
    "all/waiting.txt.j2": {
        "all_waiting.txt": lambda: {
            **notices_context(phase_code="F1901M", phase_text="Movement for Fall of 1901"),
            "anonymous": False,
            "power": "France",
            "waited_for": False,
        },
        "all_waiting_for_you_anonymous.txt": lambda: {
            **notices_context(phase_code="F1901M", phase_text="Movement for Fall of 1901"),
            "anonymous": True,
            "late_powers": None,
            "waited_for": True,
        },
        "all_waiting_observer.txt": lambda: {
            **notices_context(phase_code="F1901M", phase_text="Movement for Fall of 1901"),
            "anonymous": False,
            "power": None,
            "waited_for": False,
            "signon_line": None,
        },
    },
    "player/takeover.txt.j2": {
        "player_takeover.txt": sample(
            variant="Standard",
            judge_address="judge@example.org",
            power="England",
            phase_code="S1901M",
            phase_text="Movement for Spring of 1901",
            phase_kind="M",
            deadline_game=IN_LONDON,
            deadline_player=IN_NEW_YORK,
            held_over="48",
            heading=phase_heading("Movement", Phase.parse("S1901M"), "winter01", 1),
            order_lines=[],
            missing_lines=[
                "England: Fleet Edinburgh, No Order Processed.",
                "England: Army Liverpool, No Order Processed.",
                "England: Fleet London, No Order Processed.",
            ],
            signon_line="SIGNON Ewinter01 <password>",
            master_address="gm@example.org",
            position_text=position_report(Position.initial(standard_map())),
        )
    },
    "all/seat_taken.txt.j2": {
        "seat_taken.txt": sample(
            reader="France",
            power="England",
            address="new@example.net",
            phase_code="S1901M",
            held_over=None,
            deadline_game=IN_LONDON,
            deadline_player=None,
        ),
        "seat_taken_held_over.txt": sample(
            reader="the observers",
            power="England",
            address=None,
            phase_code="S1901M",
            held_over="48",
            deadline_game=IN_LONDON,
            deadline_player=IN_NEW_YORK,
        ),
    },
    "all/seat_open.txt.j2": {
        "seat_open_resigned.txt": sample(
            reader="France", power="Turkey", ejected=False, master_address="gm@example.org"
        ),
        "seat_open_ejected.txt": sample(
            reader="the game master", power="England", ejected=True, master_address=None
        ),
    },
    "player/ejected.txt.j2": {
        "player_ejected.txt": sample(
            power="England", phase_code="S1901M", master_address="gm@example.org"
        ),
    },
    "player/new_address.txt.j2": {
        "player_new_address.txt": sample(
            power="England", address="eng2@example.net", signon_line="SIGNON Ewinter01 <password>"
        ),
    },
    "player/press.txt.j2": {
        "press_white.txt": sample(
            shown_from="France",
            shown_to="England, Germany",
            broadcast=False,
            phase_code="S1901M",
            text="Shall we talk?\nA Bur-Par",
            answer="power",
            answer_power="France",
            answer_letter="F",
            copy=None,
        ),
        "press_grey_broadcast.txt": sample(
            shown_from=None,
            shown_to="all",
            broadcast=True,
            phase_code="S1901M",
            text="Germany is lying.",
            answer="grey",
            answer_power=None,
            answer_letter="",
            copy=None,
        ),
        "press_master_copy.txt": sample(
            shown_from=None,
            shown_to="all but Germany",
            broadcast=False,
            phase_code=None,
            text="Trust me.",
            answer="grey",
            answer_power=None,
            answer_letter="",
            copy=MasterCopy("France", "grey", "Austria, England, Italy, Russia and Turkey"),
        ),
        "press_from_master.txt": sample(
            shown_from="the game master",
            shown_to="France",
            broadcast=False,
            phase_code="F1901M",
            text="Your deadline holds.",
            answer="master",
            answer_power="the game master",
            answer_letter="",
            copy=None,
        ),
        "press_from_observer.txt": sample(
            shown_from="an observer",
            shown_to="all",
            broadcast=True,
            phase_code="F1901M",
            text="Go east.",
            answer="observer",
            answer_power="an observer",
            answer_letter="",
            copy=None,
        ),
    },
    "all/game_over.txt.j2": {
        # The final mail: a solo (after the results that said so) and the master's
        # TERMINATE (in place of its own mail), and the endings the votes bring.
        "game_over_solo.txt": lambda: game_over_context(
            Ending("solo", "F1901M", "Movement for Fall of 1901", ((1, ("France",)),)),
            winner_centres=5,
        ),
        "game_over_terminated.txt": lambda: game_over_context(
            Ending("terminated", "S1902M", "Movement for Spring of 1902")
        ),
        "game_over_draw.txt": lambda: game_over_context(
            Ending(
                "draw",
                "S1902M",
                "Movement for Spring of 1902",
                ((1, ("Austria", "England", "France")),),
            ),
        ),
        "game_over_concession.txt": lambda: game_over_context(
            Ending("concession", "S1902M", "Movement for Spring of 1902", ((1, ("Russia",)),)),
            winner_centres=6,
        ),
        "game_over_result.txt": lambda: game_over_context(
            Ending(
                "result",
                "S1902M",
                "Movement for Spring of 1902",
                ((1, ("France",)), (2, ("England", "Russia")), (4, ("Germany",))),
            ),
        ),
    },
    "all/proposal.txt.j2": {
        "proposal_first.txt": sample(**PROPOSAL),
        "proposal_repeat.txt": sample(**{**PROPOSAL, "note_lines": [], "silence": "repeat"}),
        "proposal_assent.txt": sample(
            **{**PROPOSAL, "silence": "assent", "closes": None, "counts": True},
        ),
    },
    # The house rules' proposals at their deadline (8.2-8.5): never a proposer or a vote.
    "all/proposal_defeated.txt.j2": {
        "proposal_defeated.txt": sample(**PROPOSAL_RESULT, counts=None),
        "proposal_defeated_counts.txt": sample(
            **{**PROPOSAL_RESULT, "abstain_assent": True}, counts=DEFEATED_COUNTS
        ),
        "proposal_defeated_repeat.txt": sample(
            **{**PROPOSAL_RESULT, "repeat": True, "power": None, "observer": True}, counts=None
        ),
    },
    "all/proposal_awaiting.txt.j2": {
        "proposal_awaiting.txt": sample(
            **PROPOSAL_RESULT, counts=None, decide_game=IN_LONDON, decide_player=IN_NEW_YORK
        ),
        "proposal_awaiting_counts.txt": sample(
            **{**PROPOSAL_RESULT, "power": None, "observer": True},
            counts=AWAITING_COUNTS,
            decide_game=IN_LONDON,
            decide_player=None,
        ),
    },
    "gm/proposal_decision.txt.j2": {
        "proposal_decision.txt": sample(
            **PROPOSAL_RESULT,
            survivors=5,
            sent=5,
            mentioned=2,
            silent=3,
            counts_shown=False,
            decide_game=IN_LONDON,
            decide_player=None,
        ),
        "proposal_decision_no_orders.txt": sample(
            **PROPOSAL_RESULT,
            survivors=5,
            sent=0,
            mentioned=0,
            silent=0,
            counts_shown=True,
            decide_game=IN_LONDON,
            decide_player=IN_NEW_YORK,
        ),
    },
    "all/proposal_declined.txt.j2": {
        "proposal_declined.txt": sample(**{**PROPOSAL_RESULT, "power": None}),
    },
}


def game_over_context(ending: Ending, winner_centres: int | None = None) -> dict[str, object]:
    """The final mail of winter01, ended by ``ending``: the position at the start of 1902
    (the opening position stands in for it), its centres year by year, a player who
    resigned and one in civil disorder."""
    position = Position.initial(standard_map())
    powers = standard_map().powers
    seats = [FinalSeat(power, f"{power.lower()}@example.org", None) for power in powers]
    seats[1] = FinalSeat("England", "england@example.org", "resigned")
    seats[6] = FinalSeat("Turkey", "turkey@example.org", "in civil disorder")
    history = [CentreYear(None, (3, 3, 3, 3, 3, 4, 3)), CentreYear(1901, (4, 4, 5, 5, 4, 6, 3))]
    return sample(
        judge_address="judge@example.org",
        variant="Standard",
        ending=ending,
        winner=ending.winner,
        powers_text=and_list(ending.powers),
        winner_centres=winner_centres,
        units=units_report(position),
        centres=centre_report(position),
        history=centre_history_report(powers, history),
        seats=seats,
    )()


def rollback_context(**changes: object) -> dict[str, object]:
    """A player's news of a rollback from F1901R back to the start of S1901M."""
    position = Position.initial(standard_map())
    values: dict[str, object] = dict(
        judge_address="judge@example.org",
        variant="Standard",
        from_phase="F1901R",
        to_phase="S1901M",
        phase_text=position.phase.describe(),
        undone_text="S1901M and F1901M",
        reason="Russia's support was entered as a move",
        paused=False,
        deadline_game=IN_LONDON,
        deadline_player=IN_NEW_YORK,
        position_text=position_report(position),
        power="England",
        heading=phase_heading("Movement", position.phase, "winter01", 1),
        order_lines=["England: Fleet London -> North Sea."],
        missing_lines=["England: Army Liverpool, No Order Processed."],
        signon_line="SIGNON Ewinter01 <password>",
    )
    return sample(**{**values, **changes})()


#: Golden files of templates that other tests render with other samples.
CHECKED_ELSEWHERE = {
    "confirm_complete.txt": "test_confirm_complete_from_another_address",
    "gamestart_gm_password.txt": "test_gamestart_password_from_the_game_master",
    "gamestart_replacement.txt": "test_gamestart_for_a_replacement_player",
    "late_others_anonymous.txt": "test_notices.py::test_late_others_template_anonymous",
    "reminder_adjustments.txt": "test_notices.py::test_reminder_template_adjustments",
}


@pytest.mark.parametrize(
    ("template", "golden", "context"),
    [
        pytest.param(template, golden, context, id=golden)
        for template, goldens in SAMPLES.items()
        for golden, context in goldens.items()
    ],
)
def test_template_sample(renderer: Renderer, template: str, golden: str, context: Context) -> None:
    check_golden(renderer.render(template, **context()), golden)


def test_every_template_has_a_golden_sample() -> None:
    templates = sorted(str(p.relative_to(TEMPLATE_DIR)) for p in TEMPLATE_DIR.rglob("*.j2"))
    without = [t for t in templates if t not in SAMPLES]
    assert not without, f"templates with no sample in SAMPLES: {without}"
    assert templates == sorted(SAMPLES), "SAMPLES names a template that does not exist"


def test_every_golden_file_has_a_sample() -> None:
    used = {golden for goldens in SAMPLES.values() for golden in goldens} | set(CHECKED_ELSEWHERE)
    files = {p.name for p in GOLDEN.iterdir()}
    assert files - used == set(), "golden files no sample uses"
    assert used - files == set(), "samples with no golden file (run with UPDATE_GOLDEN=1)"


# -- the renderer's own rules ------------------------------------------------------------


def test_missing_context_key_raises(renderer: Renderer) -> None:
    context = confirm_context()
    del context["heading"]
    with pytest.raises(jinja2.UndefinedError, match="heading"):
        renderer.render("player/confirm.txt.j2", **context)


def test_missing_subject_key_raises(renderer: Renderer) -> None:
    with pytest.raises(jinja2.UndefinedError, match="subject_in"):
        renderer.render("player/reply.txt.j2", judge_name="USDP", paragraphs=[])


def test_subject_is_one_line_whatever_the_values(renderer: Renderer) -> None:
    mail = renderer.render(
        "player/reply.txt.j2",
        judge_name="USDP",
        subject_in="orders\r\nBcc: victim@example.org\n",
        paragraphs=["Hello."],
    )
    assert mail.subject == "Re: orders Bcc: victim@example.org"
    assert mail.body == "Hello.\n\nUSDP\n"


def test_body_has_no_trailing_spaces_and_one_final_newline(tmp_path: Path) -> None:
    (tmp_path / "t.txt.j2").write_text(
        "Subject: {{ s }}\n\nline with spaces   \n{{ v }}\t\n\n\n\n", encoding="utf-8"
    )
    mail = Renderer(tmp_path).render("t.txt.j2", s="  hi  ", v="value  ")
    assert mail == RenderedMail("hi", "line with spaces\nvalue\n")


def test_no_html_escaping(tmp_path: Path) -> None:
    (tmp_path / "t.txt.j2").write_text("Subject: <{{ s }}>\n\n{{ v }}\n", encoding="utf-8")
    mail = Renderer(tmp_path).render("t.txt.j2", s="a & b", v="Army Paris -> Burgundy 'x' \"y\"")
    assert mail == RenderedMail("<a & b>", "Army Paris -> Burgundy 'x' \"y\"\n")


@pytest.mark.parametrize(
    "source",
    ["Hello\n\nbody\n", "Subject: x\nbody right away\n", "Subject: x"],
)
def test_template_layout_is_checked(tmp_path: Path, source: str) -> None:
    (tmp_path / "t.txt.j2").write_text(source, encoding="utf-8")
    with pytest.raises(ValueError, match=r"template t\.txt\.j2"):
        Renderer(tmp_path).render("t.txt.j2")


def test_template_errors_give_the_files_line_numbers(tmp_path: Path) -> None:
    (tmp_path / "t.txt.j2").write_text("Subject: x\n\nfine\n{{ nope }}\n", encoding="utf-8")
    with pytest.raises(jinja2.UndefinedError) as info:
        Renderer(tmp_path).render("t.txt.j2")
    frames = [f for f in info.traceback if str(f.path).endswith("t.txt.j2")]
    assert frames and frames[-1].lineno + 1 == 4


def test_reply_subject() -> None:
    # Stacked and translated reply prefixes become one "Re:".
    assert reply_subject("Re: Re: x") == "Re: x"
    assert reply_subject("AW: Diplomacy game demo") == "Re: Diplomacy game demo"
    assert reply_subject("SV: RE[3]: orders") == "Re: orders"
    assert reply_subject("Area: orders") == "Re: Area: orders"
    assert reply_subject("re:x") == "Re: x"
    assert reply_subject("  orders \n more ") == "Re: orders more"


def test_a_long_rollback_reason_is_wrapped_like_the_rest_of_the_mail(renderer: Renderer) -> None:
    # The game master's reason may be 300 characters; it is a paragraph of the mail.
    reason = " ".join(["Russia's support was entered as a move by mistake"] * 6)
    mail = renderer.render("all/rollback.txt.j2", **rollback_context(reason=reason))
    lines = mail.body.splitlines()
    start = lines.index(next(line for line in lines if line.startswith("Reason: ")))
    assert max(len(line) for line in lines) <= 76
    assert " ".join(lines[start : lines.index("", start)]) == f"Reason: {reason}"
