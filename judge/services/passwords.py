"""Password hashing (argon2) and generation."""

from __future__ import annotations

import secrets
from collections.abc import Callable

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

# Modest cost: a judge verifies a password per message, and tests hash many.
_HASHER = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)
_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"

#: Makes a new password; tests inject a deterministic one.
PasswordMaker = Callable[[], str]


def hash_password(password: str) -> str:
    """An argon2id hash of ``password``."""
    return _HASHER.hash(password)


def verify_password(stored_hash: str | None, password: str) -> bool:
    """Whether ``password`` matches; argon2 compares in constant time."""
    if not stored_hash:
        return False
    try:
        return _HASHER.verify(stored_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def new_password() -> str:
    """A random password of 10 easily typed characters."""
    return "".join(secrets.choice(_ALPHABET) for _ in range(10))
