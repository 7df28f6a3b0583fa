"""Sign-in throttling: attempts reserved before the password is hashed, per account and per source.

An attempt is *reserved* under one lock before bcrypt runs and counted as a failure at once; a
correct password releases the reservation afterwards. Parallel guesses therefore cannot all pass
the "locked?" check while the hashes run: the ``account_failures``-th reservation locks the name
and every later attempt is refused without a hash.

Two limits, so that an attacker cannot turn the lockout into a permanent lock of a real user:

* **per account** (any source): ``account_failures`` failures within ``account_window_s`` lock
  the name for ``account_lockout_s`` seconds (the ceiling: refused attempts never extend it, and
  the failures that caused it are used up, so a new lock needs as many new checked guesses);
* **per source and name** (the client address together with the name tried): after ``source_free_failures`` failures, each further
  failure makes the source wait ``source_backoff_s`` × 2^(n-1) seconds (n = failures past the
  free ones), at most ``source_backoff_max_s``; a source quiet for ``source_forget_s`` is
  forgotten. Keyed on the pair, so guesses at other (or made-up) names from an address shared by
  many users (NAT, a proxy, or the unknown address of a local dashboard) never refuse a real
  user's correct password for their own name. One address thus relocks an account ever more slowly (after a few locks, once per
  ``account_failures`` × ``source_backoff_max_s``), while other addresses wait only for the
  account's ceiling.

Not defended: an attacker with many addresses can keep relocking one name (each lock costs it
``account_failures`` checked guesses from fresh addresses). Both tables are bounded
(``max_tracked`` entries each, the entries idle longest evicted first).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from enum import StrEnum


@dataclass(frozen=True)
class LockoutPolicy:
    """Limits of failed sign-ins (seconds are monotonic-clock seconds).

    Attributes:
        account_failures: failures of one name (any source) that lock it (>= 1).
        account_window_s: window in which those failures count (> 0).
        account_lockout_s: how long a locked name stays locked (the ceiling, > 0).
        source_free_failures: failures of one source before its back-off starts (>= 0).
        source_backoff_s: first back-off of a source (> 0); doubles with each further failure.
        source_backoff_max_s: longest back-off of a source (>= source_backoff_s).
        source_forget_s: a source without a failure for this long starts afresh (> 0).
    """

    account_failures: int = 5
    account_window_s: float = 60.0
    account_lockout_s: float = 60.0
    source_free_failures: int = 5
    source_backoff_s: float = 1.0
    source_backoff_max_s: float = 900.0
    source_forget_s: float = 3600.0


class Refusal(StrEnum):
    """Why an attempt was refused before its password was checked."""

    ACCOUNT_LOCKED = "account_locked"
    SOURCE_BACKOFF = "source_backoff"


@dataclass
class _AccountState:
    failures: list[float] = field(default_factory=list)  # times of counted failures, oldest first
    locked_until: float = 0.0
    last: float = 0.0


@dataclass
class _SourceState:
    failures: int = 0
    blocked_until: float = 0.0
    last: float = 0.0


@dataclass(frozen=True)
class Reservation:
    """One admitted attempt, counted as a failure until ``SignInLimiter.release`` is called."""

    name: str
    source: str | None
    at: float


@dataclass(frozen=True)
class Verdict:
    """The limiter's answer to an attempt: a ``reservation``, or a ``refusal`` with ``retry_s``
    (seconds until the name or source may try again)."""

    reservation: Reservation | None = None
    refusal: Refusal | None = None
    retry_s: float = 0.0


class SignInLimiter:
    """The per-account and per-source failure tables of one set of accounts (thread-safe).

    Args:
        policy: the limits.
        max_tracked: most names and most sources remembered (>= 1 each).
    """

    def __init__(self, policy: LockoutPolicy | None = None, *, max_tracked: int = 10_000) -> None:
        self.policy = policy or LockoutPolicy()
        self._accounts: dict[str, _AccountState] = {}
        self._sources: dict[tuple[str, str], _SourceState] = {}  # (source, name) -> state
        self._max = max(1, max_tracked)
        self._lock = threading.Lock()

    @property
    def tracked_names(self) -> int:
        """Number of names holding failure records (<= ``max_tracked``)."""
        with self._lock:
            return len(self._accounts)

    def reserve(self, name: str, source: str | None, now: float) -> Verdict:
        """Admit an attempt and count it as a failure, or refuse it (no password check).

        ``source`` None (the caller does not know the client address) skips the source limit.
        """
        p = self.policy
        with self._lock:
            self._prune(now)
            acct = self._accounts.get(name)
            if acct is not None and acct.locked_until > now:
                return Verdict(refusal=Refusal.ACCOUNT_LOCKED, retry_s=acct.locked_until - now)
            skey = (source, name) if source is not None else None
            src = self._sources.get(skey) if skey is not None else None
            if src is not None and src.blocked_until > now:
                return Verdict(refusal=Refusal.SOURCE_BACKOFF, retry_s=src.blocked_until - now)
            acct = self._accounts.pop(name, None) or _AccountState()
            acct.failures = [t for t in acct.failures if now - t < p.account_window_s] + [now]
            acct.last = now
            self._accounts[name] = acct  # re-inserted: the dict stays ordered by last activity
            if len(acct.failures) >= p.account_failures:
                acct.locked_until = now + p.account_lockout_s
                acct.failures = []  # used up: the next lock needs as many new failures
            if skey is not None:
                src = self._sources.pop(skey, None) or _SourceState()
                src.failures += 1
                src.last = now
                past = src.failures - p.source_free_failures
                if past > 0:
                    wait = min(p.source_backoff_s * 2 ** (past - 1), p.source_backoff_max_s)
                    src.blocked_until = now + wait
                self._sources[skey] = src
            self._bound()
            return Verdict(reservation=Reservation(name, source, now))

    def release(self, reservation: Reservation) -> None:
        """The reserved attempt succeeded: the name starts afresh and its lock (which this very
        attempt's reservation may have set) is lifted; the source keeps its count minus this
        attempt (signing in to one's own account never erases guesses at others)."""
        with self._lock:
            self._accounts.pop(reservation.name, None)  # its failures and lock are forgotten
            src = (
                self._sources.get((reservation.source, reservation.name))
                if reservation.source is not None
                else None
            )
            if src is not None and src.failures > 0:
                src.failures -= 1
                past = src.failures - self.policy.source_free_failures
                if past <= 0:
                    src.blocked_until = 0.0

    def state(self, name: str, source: str | None, now: float) -> dict[str, float]:
        """Seconds until ``name`` and ``source`` may try again (0 = now), for the audit."""
        with self._lock:
            acct = self._accounts.get(name)
            src = self._sources.get((source, name)) if source is not None else None
            return {
                "account_locked_s": max(0.0, acct.locked_until - now) if acct else 0.0,
                "source_backoff_s": max(0.0, src.blocked_until - now) if src else 0.0,
            }

    def _prune(self, now: float) -> None:
        """Forget expired names and sources (ordered by last activity). Lock held."""
        p = self.policy
        while self._accounts:
            first, acct = next(iter(self._accounts.items()))
            idle = now - acct.last >= p.account_window_s and acct.locked_until <= now
            if not idle:
                break
            del self._accounts[first]
        while self._sources:
            first_src, src = next(iter(self._sources.items()))
            if now - src.last < p.source_forget_s or src.blocked_until > now:
                break
            del self._sources[first_src]

    def _bound(self) -> None:
        """Keep both tables within ``max_tracked`` (idle longest first). Lock held."""
        while len(self._accounts) > self._max:
            del self._accounts[next(iter(self._accounts))]
        while len(self._sources) > self._max:
            del self._sources[next(iter(self._sources))]
