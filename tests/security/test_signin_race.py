"""Sign-in under parallel guessing (real bcrypt, real threads): the attempt is reserved before the
password is hashed, so N parallel wrong guesses lock the name and the correct password is then
refused; the lock has a ceiling, so a different client address signs in after it even while the
guessing address keeps trying; every attempt and lockout reaches the audit sink."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from memory_engine.security.auth import (
    LOCKOUT_SECONDS,
    MAX_FAILURES,
    Accounts,
    AuthError,
    Role,
    hash_password,
)

PASSWORD = "carol-secret-密码"


def _accounts(**kwargs: object) -> Accounts:
    entry = {
        "password_hash": hash_password(PASSWORD),
        "role": Role.VIEWER.value,
        "tenants": ["acme"],
    }
    return Accounts({"users": {"carol": entry}}, **kwargs)  # type: ignore[arg-type]


def _parallel_guesses(accounts: Accounts, threads: int, **kwargs: object) -> list[str]:
    """``threads`` wrong guesses released at once; the error message of each."""
    barrier = threading.Barrier(threads)

    def guess(i: int) -> str:
        barrier.wait()
        try:
            accounts.sign_in("carol", f"wrong-{i}", now=100.0, **kwargs)  # type: ignore[arg-type]
        except AuthError as exc:
            return exc.message
        return "signed in"

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(guess, range(threads)))


@pytest.mark.parametrize("threads", [12, 24])
def test_parallel_wrong_guesses_lock_the_name_and_refuse_the_right_password(threads: int) -> None:
    accounts = _accounts()
    messages = _parallel_guesses(accounts, threads)
    checked = [m for m in messages if m == "wrong name or password"]
    refused = [m for m in messages if m.startswith("too many failed sign-ins")]
    assert len(checked) + len(refused) == threads, messages
    assert len(checked) <= MAX_FAILURES, f"{len(checked)} passwords checked in parallel"
    with pytest.raises(AuthError, match="too many failed sign-ins"):
        accounts.sign_in("carol", PASSWORD, now=101.0)
    assert accounts.sign_in("carol", PASSWORD, now=100.0 + LOCKOUT_SECONDS + 1).name == "carol"


def test_unknown_names_are_locked_alike() -> None:
    messages = _parallel_guesses(_accounts(), 12)
    assert sum(m.startswith("too many") for m in messages) >= 12 - MAX_FAILURES
    accounts = _accounts()
    barrier = threading.Barrier(12)

    def guess(i: int) -> str:
        barrier.wait()
        try:
            accounts.sign_in("nobody", f"x-{i}", now=100.0)
        except AuthError as exc:
            return exc.message
        return "signed in"

    with ThreadPoolExecutor(12) as pool:
        unknown = list(pool.map(guess, range(12)))
    assert sum(m == "wrong name or password" for m in unknown) <= MAX_FAILURES


def test_another_source_is_not_locked_forever(tmp_path: Path) -> None:
    records: list[object] = []
    accounts = _accounts(audit=records.append)
    messages = _parallel_guesses(accounts, 24, source="203.0.113.9")
    assert sum(m == "wrong name or password" for m in messages) <= MAX_FAILURES
    # the attacker keeps guessing from its address; the real user tries from another one
    t = 100.0
    while t < 100.0 + 20 * LOCKOUT_SECONDS:
        try:
            accounts.sign_in("carol", "still-wrong", source="203.0.113.9", now=t)
        except AuthError:
            pass
        t += 5.0
    # the attacker's own address backs off ever longer, so it cannot keep the name locked
    with pytest.raises(AuthError, match="too many failed sign-ins"):
        accounts.sign_in("carol", PASSWORD, source="203.0.113.9", now=t)
    assert accounts.sign_in("carol", PASSWORD, source="198.51.100.7", now=t).name == "carol"
    outcomes = {getattr(r, "outcome", None) for r in records}
    assert {"failure", "refused", "success"} <= outcomes
    assert any(getattr(r, "locked", False) for r in records), "no lockout was audited"
    assert all(PASSWORD not in repr(r) for r in records)


def test_guesses_at_other_names_from_a_shared_address_do_not_lock_a_real_user() -> None:
    """16 failed guesses at made-up names from one address (a NAT or proxy shared with the real
    user) do not refuse bob's correct password from that address; the same address guessing at
    bob's own name is still backed off."""
    entry = {"password_hash": hash_password(PASSWORD), "role": Role.VIEWER.value, "tenants": ["a"]}
    accounts = Accounts({"users": {"bob": entry}})
    for i in range(16):
        with pytest.raises(AuthError):
            accounts.sign_in(f"made-up-{i}", "guess", source="10.0.0.1", now=100.0 + i)
    assert accounts.sign_in("bob", PASSWORD, source="10.0.0.1", now=117.0).name == "bob"
    for i in range(MAX_FAILURES):
        with pytest.raises(AuthError):
            accounts.sign_in("bob", f"wrong-{i}", source="10.0.0.1", now=120.0 + i)
    with pytest.raises(AuthError, match="too many failed sign-ins"):
        accounts.sign_in("bob", PASSWORD, source="10.0.0.1", now=120.0 + MAX_FAILURES)
