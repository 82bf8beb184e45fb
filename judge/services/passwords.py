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
# served from the memory).  Compared in constant time.  Only successes are remembered: a
# wrong password costs a verification every time, so the memory neither answers faster
# for a guess nor holds anything a sender could fill to refuse a player.
_MEMORY_KEY = secrets.token_bytes(32)
_MEMORY: OrderedDict[str, bytes] = OrderedDict()
_MEMORY_LOCK = threading.Lock()
#: The fewest passwords the memory holds, whatever the database (a judge starting up, a
#: test's database of one game).
MEMORY_FLOOR = 4096
#: The most it ever holds: at :data:`MEMORY_ENTRY_BYTES` an entry, some 80 MB.
MEMORY_CEILING = 262144
#: What one remembered password costs, rounded up from a measure (``tracemalloc``,
#: CPython 3.11: 277 bytes an entry over 20,000): its key, the stored hash (a str of 97
#: characters, 146 bytes), its value, a 32-byte digest (65 bytes), and the ordered
#: dictionary's slot and link.
MEMORY_ENTRY_BYTES = 320
#: The memory holds this many times the password hashes the database holds (see
#: :func:`size_memory`), for the new ones made between two counts.
MEMORY_MARGIN = 1.25
_memory_size = MEMORY_FLOOR


def _tag(password: str) -> bytes:
    return hmac.new(_MEMORY_KEY, password.encode("utf-8"), hashlib.sha256).digest()


def memory_size() -> int:
    """How many verified passwords the memory holds at most now."""
    return _memory_size


def size_memory(hashes: int) -> int:
    """Size the memory for a database that holds ``hashes`` password hashes (players'
    own and takeover passwords, game masters', observers'): :data:`MEMORY_MARGIN` times
    as many, at least :data:`MEMORY_FLOOR` and at most :data:`MEMORY_CEILING` (the
    least recently used go first when it shrinks).  Returns the new size."""
    global _memory_size
    size = min(MEMORY_CEILING, max(MEMORY_FLOOR, math.ceil(max(0, hashes) * MEMORY_MARGIN)))
    with _MEMORY_LOCK:
        _memory_size = size
        while len(_MEMORY) > size:
            _MEMORY.popitem(last=False)
    return size


class Verdicts:
    """The outcome of each password check made for one batch of messages before its
    write transaction (:mod:`judge.services.preverify`), for that batch's transaction
    only: a right password is also remembered as usual, a wrong one only here, so that
    the transaction does not verify it a second time (a wrong password costs one
    verification, as it always did) and nothing of it outlives the batch.

    Keyed by the stored hash and an HMAC of the password under the memory's random key
    (nothing of the password is kept readable): a hash changed in between (a password
    set by an earlier message of the batch) is simply verified again.
    """

    def __init__(self) -> None:
        self._found: dict[tuple[str, bytes], bool] = {}

    def __len__(self) -> int:
        return len(self._found)

    def known(self, stored_hash: str, password: str) -> bool | None:
        """What checking ``password`` against ``stored_hash`` found, if it was checked."""
        return self._found.get((stored_hash, _tag(password)))

    def check(self, stored_hash: str | None, password: str) -> bool:
        """:func:`verify_password`, its outcome kept for the batch."""
        if not stored_hash:
            return False
        ok = verify_password(stored_hash, password, self)
        self._found[(stored_hash, _tag(password))] = ok
        return ok


def verify_password(
    stored_hash: str | None, password: str, verdicts: Verdicts | None = None
) -> bool:
    """Whether ``password`` matches ``stored_hash`` (argon2; comparisons in constant time).
    ``verdicts``: the checks made for this batch before its transaction, consulted first."""
    if not stored_hash:
        return False
    if verdicts is not None:
        found = verdicts.known(stored_hash, password)
        if found is not None:
            return found
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
            while len(_MEMORY) > _memory_size:
                _MEMORY.popitem(last=False)
    return ok


def new_password() -> str:
    """A random password of :data:`GENERATED_PASSWORD_LENGTH` easily typed characters."""
    return "".join(secrets.choice(PASSWORD_ALPHABET) for _ in range(GENERATED_PASSWORD_LENGTH))


def generated_password_bits() -> float:
    """The entropy of a password made by :func:`new_password`, in bits."""
    return GENERATED_PASSWORD_LENGTH * math.log2(len(PASSWORD_ALPHABET))
