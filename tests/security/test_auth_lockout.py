"""The failed-sign-in table of ``Accounts``: expired entries are pruned and its size is
bounded, while a name under lockout stays locked (real bcrypt checks)."""

from __future__ import annotations

import pytest

from memory_engine.security.auth import LOCKOUT_SECONDS, MAX_FAILURES, Accounts, AuthError


def _fail(accounts: Accounts, name: str, now: float) -> None:
    with pytest.raises(AuthError, match="wrong name or password"):
        accounts.sign_in(name, "not-the-password", now=now)


def test_expired_failures_are_pruned() -> None:
    accounts = Accounts({})
    for i, name in enumerate(("ann", "ben", "cat")):
        _fail(accounts, name, now=100.0 + i)
    assert accounts.tracked_names == 3
    # one failure after the window: the three old names are gone, only the new one is kept
    _fail(accounts, "dan", now=102.0 + LOCKOUT_SECONDS)
    assert accounts.tracked_names == 1
    # a check of an expired name leaves no empty record behind
    _fail(accounts, "eve", now=200.0 + 3 * LOCKOUT_SECONDS)
    assert accounts.tracked_names == 1


def test_table_is_bounded_and_keeps_the_newest_names() -> None:
    accounts = Accounts({}, max_tracked=3)
    for i in range(MAX_FAILURES):  # "victim" is locked out at t = 100..104
        _fail(accounts, "victim", now=100.0 + i)
    for i, name in enumerate(("a", "b")):
        _fail(accounts, name, now=110.0 + i)
    assert accounts.tracked_names == 3
    with pytest.raises(AuthError, match="too many failed sign-ins"):
        accounts.sign_in("victim", "whatever", now=115.0)
    # a fourth name evicts the name whose last failure is oldest ("victim")
    _fail(accounts, "c", now=120.0)
    assert accounts.tracked_names == 3
    _fail(accounts, "victim", now=121.0)  # not locked any more: an ordinary failure
    assert accounts.tracked_names == 3


def test_lockout_still_holds_within_the_window() -> None:
    accounts = Accounts({}, max_tracked=10)
    for i in range(MAX_FAILURES):
        _fail(accounts, "bob", now=100.0 + i)
    with pytest.raises(AuthError, match="too many failed sign-ins"):
        accounts.sign_in("bob", "x", now=100.0 + LOCKOUT_SECONDS - 1)
    _fail(accounts, "bob", now=104.0 + LOCKOUT_SECONDS + 0.5)  # window over: checked again
