"""Password hashing (argon2) and generation."""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from judge.engine.notation import MAX_WORD_LENGTH

# Modest cost: a judge verifies a password per message, and tests hash many.
_HASHER = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)
#: The letters of the passwords the judge makes: lower case and digits, without the ones
#: easily mistaken for others (0 o, 1 l i).
PASSWORD_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
#: The length of the passwords the judge makes: 10 of 31 letters, about 49.5 bits.
GENERATED_PASSWORD_LENGTH = 10
#: The shortest password SET PASSWORD takes.
MIN_PASSWORD_LENGTH = 8
#: The longest (a bound on what is hashed; no one types more): the longest word the
#: command reader takes (``judge.engine.notation.MAX_WORD_LENGTH``, which is also
#: ``judge.commands.MAX_WORD``), so the two limits say one thing.
MAX_PASSWORD_LENGTH = MAX_WORD_LENGTH

#: Makes a new password; tests inject a deterministic one.
PasswordMaker = Callable[[], str]


def hash_password(password: str) -> str:
    """An argon2id hash of ``password``."""
    return _HASHER.hash(password)


# Argon2 is slow on purpose (tens of milliseconds); a player signs on with every message.
# A password that verified once is remembered, for this process only, as an HMAC under a
# random key, keyed by the stored hash (a changed password has a new hash, so it is never
# served from the memory).  Compared in constant time.
_MEMORY_KEY = secrets.token_bytes(32)
_MEMORY: OrderedDict[str, bytes] = OrderedDict()
_MEMORY_SIZE = 4096
_MEMORY_LOCK = threading.Lock()


def _tag(password: str) -> bytes:
    return hmac.new(_MEMORY_KEY, password.encode("utf-8"), hashlib.sha256).digest()


def verify_password(stored_hash: str | None, password: str) -> bool:
    """Whether ``password`` matches ``stored_hash`` (argon2; comparisons in constant time)."""
    if not stored_hash:
        return False
    tag = _tag(password)
    with _MEMORY_LOCK:
        known = _MEMORY.get(stored_hash)
        if known is not None:
            _MEMORY.move_to_end(stored_hash)
    if known is not None and hmac.compare_digest(known, tag):
        return True
    try:
        ok = _HASHER.verify(stored_hash, password)
    except (VerificationError, InvalidHashError):
        return False
    if ok:
        with _MEMORY_LOCK:
            _MEMORY[stored_hash] = tag
            while len(_MEMORY) > _MEMORY_SIZE:
                _MEMORY.popitem(last=False)
    return ok


def new_password() -> str:
    """A random password of :data:`GENERATED_PASSWORD_LENGTH` easily typed characters."""
    return "".join(secrets.choice(PASSWORD_ALPHABET) for _ in range(GENERATED_PASSWORD_LENGTH))


def generated_password_bits() -> float:
    """The entropy of a password made by :func:`new_password`, in bits."""
    return GENERATED_PASSWORD_LENGTH * math.log2(len(PASSWORD_ALPHABET))
