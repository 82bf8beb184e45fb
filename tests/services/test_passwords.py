"""Passwords: argon2 hashes, never stored in clear; a remembered check stays exact."""

from __future__ import annotations

from judge.services.passwords import hash_password, new_password, verify_password


def test_hash_and_verify() -> None:
    stored = hash_password("s3cret")
    assert stored.startswith("$argon2id$") and "s3cret" not in stored
    assert verify_password(stored, "s3cret")
    assert verify_password(stored, "s3cret")  # now from memory
    assert not verify_password(stored, "S3cret")
    assert not verify_password(stored, "s3cret ")
    assert not verify_password(None, "s3cret")
    assert not verify_password("not a hash", "s3cret")


def test_a_new_password_replaces_the_remembered_one() -> None:
    old = hash_password("first")
    assert verify_password(old, "first")
    new = hash_password("second")
    assert not verify_password(new, "first")
    assert verify_password(new, "second")


def test_generated_passwords() -> None:
    made = {new_password() for _ in range(50)}
    assert len(made) == 50
    assert all(len(p) == 10 and p.isalnum() for p in made)
