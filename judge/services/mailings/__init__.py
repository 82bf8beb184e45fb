"""The mail a game sends: one function per kind, each with its own template.

A function here takes values (the game, a player, a time), never sentences: the words are
in the kind's template under ``templates/`` (``player/new_deadline.txt.j2``,
``gm/edit_refused.txt.j2`` ...), which the golden files in ``tests/data/golden/render``
pin down.  Who reads each kind comes from :mod:`judge.services.audience`.  Each function
queues its mail in the caller's transaction (:func:`~judge.services.outbox.queue_mail`).

The replies to a player's own message (confirmations, refusals) are the conversation's
(:mod:`judge.services.conversation`, :mod:`judge.services.replies`), not a game's mail.
"""

from judge.services.mailings.disorder import (
    send_back_from_disorder,
    send_civil_disorder_news,
    send_late_master,
    send_waiting,
)
from judge.services.mailings.endings import FinalSeat, send_game_over
from judge.services.mailings.gamestart import (
    Seat,
    send_master_gamestart,
    send_observers_gamestart,
)
from judge.services.mailings.master import (
    EditNews,
    PasswordReset,
    Replacement,
    StaleDeadline,
    send_civil_disorder,
    send_edit_applied,
    send_edit_refused,
    send_mail_undeliverable,
    send_player_resigned,
)
from judge.services.mailings.players import (
    OrdersDue,
    send_late,
    send_late_others,
    send_new_deadline,
    send_new_password,
    send_reminder,
    send_replaced,
    send_results,
    send_signon_locked,
    send_welcome,
)
from judge.services.mailings.press import MasterCopy, PressMail, send_press
from judge.services.mailings.press_settings import send_press_settings
from judge.services.mailings.proposal_results import (
    send_proposal_awaiting,
    send_proposal_declined,
    send_proposal_defeated,
)
from judge.services.mailings.proposals import ProposalNews, Silence, send_proposal
from judge.services.mailings.schedule import send_grace, send_paused, send_resumed
from judge.services.mailings.seats import (
    send_ejected,
    send_new_address,
    send_seat_open,
    send_seat_taken,
    send_takeover,
)

__all__ = [
    "EditNews",
    "FinalSeat",
    "MasterCopy",
    "OrdersDue",
    "PasswordReset",
    "PressMail",
    "ProposalNews",
    "Replacement",
    "Seat",
    "Silence",
    "StaleDeadline",
    "send_back_from_disorder",
    "send_civil_disorder",
    "send_civil_disorder_news",
    "send_edit_applied",
    "send_edit_refused",
    "send_ejected",
    "send_game_over",
    "send_grace",
    "send_late",
    "send_late_master",
    "send_late_others",
    "send_mail_undeliverable",
    "send_master_gamestart",
    "send_new_address",
    "send_new_deadline",
    "send_new_password",
    "send_observers_gamestart",
    "send_paused",
    "send_player_resigned",
    "send_press",
    "send_press_settings",
    "send_proposal",
    "send_proposal_awaiting",
    "send_proposal_declined",
    "send_proposal_defeated",
    "send_reminder",
    "send_replaced",
    "send_results",
    "send_resumed",
    "send_seat_open",
    "send_seat_taken",
    "send_signon_locked",
    "send_takeover",
    "send_waiting",
    "send_welcome",
]
