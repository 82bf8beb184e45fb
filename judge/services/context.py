"""The judge's service context: settings, templates, and injectable sources."""

from __future__ import annotations

from dataclasses import dataclass, field

from judge.config import JudgeSettings
from judge.render import Renderer
from judge.services.passwords import PasswordMaker, new_password


@dataclass
class Judge:
    """Everything a service needs besides the database session and the time.

    The clock is never read here: every service takes ``now`` (aware, UTC).
    """

    settings: JudgeSettings = field(default_factory=JudgeSettings)
    renderer: Renderer = field(default_factory=Renderer)
    make_password: PasswordMaker = new_password
