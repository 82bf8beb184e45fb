"""What a transport promises and the failures it reports, sorted for the sender's retries.

:class:`TransientError` (SMTP 4xx, a timeout; also any exception a transport did not
classify) is tried again later; :class:`ServerUnavailable` is transient too but ends the
delivery run, since every other message would fail the same way; :class:`PermanentError`
(SMTP 5xx) is not tried again.
"""

from __future__ import annotations

from typing import Protocol

from judge.mail.outgoing import OutgoingMail

__all__ = ["PermanentError", "ServerUnavailable", "TransientError", "Transport"]


class TransientError(Exception):
    """A delivery failure that may go away: the message is tried again later."""


class ServerUnavailable(TransientError):
    """The server cannot be reached or is closing down (connection refused, timeout, 421).

    Every other message of the run would fail the same way, so the sender stops the run
    there: the rest keep their place and their attempts.
    """


class PermanentError(Exception):
    """A delivery failure that retrying will not mend (an SMTP 5xx): the message is given up."""


class Transport(Protocol):
    """Delivers one outgoing mail; raises on failure.

    Raise :class:`TransientError` (or :class:`ServerUnavailable`) for what may work later and
    :class:`PermanentError` for what will not; any other exception counts as transient.
    """

    def send(self, mail: OutgoingMail) -> None:
        """Deliver ``mail``; must be idempotent for the same Message-ID."""
