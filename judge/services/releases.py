"""Press releases (house rules 10.1-10.3; the njudge's POSTALPRESS): press held by the
judge and published in the next results, in the order received, when its conditions on
the phase's orders hold (``PRESS PUBLISH IF A Par-Bur SUCCEEDS``), under a dateline of
the sender's choosing (``DATELINE Vienna``) except the reserved ones: the game master's
(``master_dateline``) and each power's capital and "<Power> (Govt.)"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.services.press import PressRequest

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["hold"]


def hold(conversation: Conversation, request: PressRequest) -> None:
    """Check the release ``request`` and hold it for the next results, confirming it in
    the reply; or refuse it (:func:`judge.services.press.refuse`)."""
    raise NotImplementedError
