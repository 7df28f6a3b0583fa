"""Dashboard accounts, roles and tenant grants (no Streamlit here: pure, testable logic).

Accounts live in ``.streamlit/secrets.toml`` (never in the repo; ``memory-engine user add``
writes them), passwords hashed with bcrypt (cost 12)::

    [memory_auth]
    mode = "password"            # password | oidc | none

    [memory_auth.users.alice]
    password_hash = "$2b$12$..."
    role = "admin"               # viewer | editor | admin
    tenants = ["*"]              # granted tenant ids, "*" = all

    [memory_auth.oidc_users."alice@example.com"]   # mode = "oidc" (Streamlit st.login)
    role = "editor"
    tenants = ["acme"]

``MEMORY_DASHBOARD_AUTH`` overrides ``mode`` (``make run`` sets ``none`` for a local,
single-user session, shown in a banner).

Roles (each includes the one before):

=========  ================================================================================
viewer     read: overview, listings, search, traces, audit, exports of granted tenants
editor     + edit, archive, restore, soft delete, run maintenance, review conflicts
admin      + purge and forget-user, cross-tenant views (tenant counts, isolation check),
           settings; may be granted ``*``
=========  ================================================================================
"""

from __future__ import annotations

import enum
import functools
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bcrypt

from memory_engine.errors import InvalidInputError, MemoryEngineError
from memory_engine.models import Scope


class AuthMode(enum.StrEnum):
    """How the dashboard signs people in."""

    PASSWORD = "password"
    OIDC = "oidc"
    NONE = "none"  # local, single user, explicitly enabled; every visitor acts as admin


class Role(enum.StrEnum):
    """Dashboard roles, weakest first."""

    VIEWER = "viewer"
    EDITOR = "editor"
    ADMIN = "admin"


class Action(enum.StrEnum):
    """What a dashboard control does; each needs a minimum role (``REQUIRED``)."""

    READ = "read"
    EDIT = "edit"  # update, archive, restore, soft delete, review
    MAINTAIN = "maintain"  # run maintenance / consolidation
    PURGE = "purge"  # hard delete, forget a user
    ADMIN = "admin"  # cross-tenant views, isolation check, settings


_RANK = {Role.VIEWER: 0, Role.EDITOR: 1, Role.ADMIN: 2}
#: Minimum role of each action.
REQUIRED: dict[Action, Role] = {
    Action.READ: Role.VIEWER,
    Action.EDIT: Role.EDITOR,
    Action.MAINTAIN: Role.EDITOR,
    Action.PURGE: Role.ADMIN,
    Action.ADMIN: Role.ADMIN,
}

#: Failed sign-ins per user name before a lockout, and the lockout length (seconds).
MAX_FAILURES = 5
LOCKOUT_SECONDS = 60.0
#: Most user names whose recent failures are remembered. Names typed at random (unknown
#: users count too) would otherwise grow the table without end; past the bound the names whose
#: last failure is oldest are forgotten first. Each failure costs a bcrypt check (~0.2 s), so
#: evicting a locked name within its window takes far longer than the window itself.
MAX_TRACKED_NAMES = 10_000
BCRYPT_ROUNDS = 12


class AuthError(MemoryEngineError):
    """Sign-in refused (wrong name or password, locked out, or not configured)."""

    code = "auth_error"


class PermissionDeniedError(MemoryEngineError):
    """The signed-in account's role or tenant grants do not allow the action."""

    code = "permission_denied"


@dataclass(frozen=True)
class Account:
    """A signed-in dashboard identity. ``tenants`` holds granted ids or ``"*"``."""

    name: str
    role: Role
    tenants: tuple[str, ...]
    via: str = "password"  # password | oidc | local

    @property
    def actor(self) -> str:
        """The audit actor recorded for this account's changes, e.g. ``dashboard:alice``."""
        return f"dashboard:{self.name}"

    @property
    def all_tenants(self) -> bool:
        """True when granted every tenant (``*``)."""
        return "*" in self.tenants

    def may_see(self, tenant: str | None) -> bool:
        """True when ``tenant`` is granted (None, no tenant chosen, is always allowed)."""
        return tenant is None or self.all_tenants or tenant in self.tenants

    def can(self, action: Action | str, tenant: str | None = None) -> bool:
        """True when the role allows ``action`` on ``tenant`` (which must be granted).

        ``Action.ADMIN`` without a tenant is a cross-tenant view and needs every tenant (``*``).
        """
        action = Action(action)
        if _RANK[self.role] < _RANK[REQUIRED[action]]:
            return False
        if action is Action.ADMIN and tenant is None:  # a cross-tenant view: every tenant
            return self.all_tenants
        return self.may_see(tenant)

    def require(self, action: Action | str, tenant: str | None = None) -> None:
        """Raise PermissionDeniedError unless ``can(action, tenant)``."""
        if not self.can(action, tenant):
            raise PermissionDeniedError(
                f"{self.name} ({self.role.value}) may not {Action(action).value}"
                + (f" in tenant {tenant}" if tenant else ""),
                account=self.name,
                role=self.role.value,
                action=Action(action).value,
                tenant=tenant,
            )


@functools.cache
def _dummy_hash() -> bytes:
    return bcrypt.hashpw(b"not-a-real-password", bcrypt.gensalt(BCRYPT_ROUNDS))


LOCAL_ACCOUNT = Account(name="local", role=Role.ADMIN, tenants=("*",), via="local")


def hash_password(password: str) -> str:
    """bcrypt hash (cost ``BCRYPT_ROUNDS``) of a password of 8..72 UTF-8 bytes.

    Raises:
        InvalidInputError: shorter than 8 characters or longer than bcrypt's 72 bytes.
    """
    raw = password.encode("utf-8")
    if len(password) < 8:
        raise InvalidInputError("a password needs at least 8 characters")
    if len(raw) > 72:
        raise InvalidInputError("a password may have at most 72 bytes (bcrypt's limit)")
    return bcrypt.hashpw(raw, bcrypt.gensalt(BCRYPT_ROUNDS)).decode("ascii")


def _grant(entry: Mapping[str, Any], name: str, via: str) -> Account:
    try:
        role = Role(str(entry.get("role", "")))
    except ValueError as exc:
        raise AuthError(f"account {name!r} has an unknown role {entry.get('role')!r}") from exc
    tenants = entry.get("tenants", [])
    if isinstance(tenants, str) or not all(isinstance(x, str) for x in tenants):
        raise AuthError(f"account {name!r}: tenants must be a list of tenant ids")
    for tenant in tenants:
        if tenant != "*":
            Scope.of(tenant)  # raises TenantScopeError for a malformed grant
    if "*" in tenants and role is not Role.ADMIN:
        raise AuthError(f"account {name!r}: only admins may be granted every tenant ('*')")
    return Account(name=name, role=role, tenants=tuple(tenants), via=via)


class Accounts:
    """Accounts loaded from the ``memory_auth`` mapping of secrets.toml, with sign-in lockout.

    Args:
        config: the ``memory_auth`` mapping (``users``, ``oidc_users``); None = no accounts.
        max_tracked: most user names whose failures are remembered (>= 1); failures older than
            ``LOCKOUT_SECONDS`` are pruned on every failed sign-in.
    """

    def __init__(
        self, config: Mapping[str, Any] | None, *, max_tracked: int = MAX_TRACKED_NAMES
    ) -> None:
        config = config or {}
        self.users: dict[str, Mapping[str, Any]] = dict(config.get("users", {}) or {})
        self.oidc_users: dict[str, Mapping[str, Any]] = dict(config.get("oidc_users", {}) or {})
        # name -> times (monotonic s) of its last failures inside the window, at most
        # MAX_FAILURES, oldest first; insertion order = order of the last failure.
        self._failures: dict[str, list[float]] = {}
        self._max_tracked = max(1, max_tracked)
        self._lock = threading.Lock()

    @property
    def tracked_names(self) -> int:
        """Number of user names holding failure records (<= ``max_tracked``)."""
        with self._lock:
            return len(self._failures)

    def _recent(self, name: str, now: float) -> list[float]:
        """The name's failures inside the window; an expired entry is dropped. Lock held."""
        recent = [t for t in self._failures.get(name, ()) if now - t < LOCKOUT_SECONDS]
        if recent:
            self._failures[name] = recent
        else:
            self._failures.pop(name, None)
        return recent

    def _locked_for(self, name: str, now: float) -> float:
        recent = self._recent(name, now)
        if len(recent) >= MAX_FAILURES:
            return LOCKOUT_SECONDS - (now - recent[-MAX_FAILURES])
        return 0.0

    def _record_failure(self, name: str, now: float) -> None:
        """Remember a failure; prune expired names and keep the table bounded. Lock held."""
        recent = self._recent(name, now)
        self._failures.pop(name, None)  # re-insert: the dict stays ordered by last failure
        self._failures[name] = (recent + [now])[-MAX_FAILURES:]
        while self._failures:  # oldest last failure first: expired names form a prefix
            first = next(iter(self._failures))
            expired = now - self._failures[first][-1] >= LOCKOUT_SECONDS
            if not expired and len(self._failures) <= self._max_tracked:
                break
            del self._failures[first]

    def sign_in(self, name: str, password: str, *, now: float | None = None) -> Account:
        """Check a name and password; returns the Account.

        Raises:
            AuthError: unknown name or wrong password (one message for both), or locked out
                after ``MAX_FAILURES`` failures within ``LOCKOUT_SECONDS``.
        """
        now = time.monotonic() if now is None else now
        name = name.strip()
        with self._lock:
            wait = self._locked_for(name, now)
        if wait > 0:
            raise AuthError(f"too many failed sign-ins; try again in {wait:.0f} s", retry_s=wait)
        entry = self.users.get(name)
        stored = str(entry.get("password_hash", "")) if entry else ""
        raw = password.encode("utf-8")
        ok = False
        # bcrypt >= 5 raises ValueError beyond 72 bytes; hash_password never stores such a
        # password, so a longer one is simply wrong (same time spent, same message).
        if entry is not None and stored.startswith("$2") and len(raw) <= 72:
            ok = bcrypt.checkpw(raw, stored.encode("ascii"))
        else:  # spend the same time on unknown names (no user enumeration by timing)
            bcrypt.checkpw(b"x", _dummy_hash())
        if not ok or entry is None:
            with self._lock:
                self._record_failure(name, now)
            raise AuthError("wrong name or password")
        return _grant(entry, name, "password")

    def refresh(self, account: Account) -> Account | None:
        """``account`` as the current configuration grants it now (role and tenants re-read),
        or None when the account was removed or its entry became invalid. A signed-in browser
        session calls this on every run, so a revoked or downgraded account takes effect."""
        if account.via == "local":
            return account
        entries = self.oidc_users if account.via == "oidc" else self.users
        entry = entries.get(account.name)
        if entry is None:
            return None
        try:
            return _grant(entry, account.name, account.via)
        except MemoryEngineError:  # AuthError, or TenantScopeError of a malformed grant
            return None

    def for_oidc(self, email: str | None) -> Account:
        """The Account of an OIDC-signed-in e-mail. Raises AuthError when it has no grant."""
        if not email or email not in self.oidc_users:
            raise AuthError(f"{email or 'this identity'} has no dashboard role; ask an admin")
        return _grant(self.oidc_users[email], email, "oidc")


def add_user(
    secrets_path: Path, name: str, password: str, role: Role | str, tenants: list[str]
) -> Account:
    """Create or replace an account in ``secrets_path`` (TOML), keeping every other entry.

    Raises:
        InvalidInputError: bad name, short password, unknown role or tenant id.
    """
    import tomllib

    import tomli_w

    if not name or not all(c.isalnum() or c in "._-@" for c in name) or len(name) > 64:
        raise InvalidInputError("account names use letters, digits and . _ - @ (1-64)")
    try:
        role = Role(role)
    except ValueError as exc:
        raise InvalidInputError(f"role must be one of {', '.join(Role)}") from exc
    entry = {"password_hash": hash_password(password), "role": role.value, "tenants": tenants}
    try:
        account = _grant(entry, name, "password")
    except AuthError as exc:
        raise InvalidInputError(exc.message) from exc
    data: dict[str, Any] = (
        tomllib.loads(secrets_path.read_text("utf-8")) if secrets_path.exists() else {}
    )
    section = data.setdefault("memory_auth", {})
    section.setdefault("mode", AuthMode.PASSWORD.value)
    section.setdefault("users", {})[name] = entry
    secrets_path.parent.mkdir(parents=True, exist_ok=True)
    # Owner-only before the first byte is written (write_text would create it 0644 first).
    fd = os.open(secrets_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(tomli_w.dumps(data))
    return account
