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
import logging
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bcrypt

from memory_engine.errors import InvalidInputError, MemoryEngineError
from memory_engine.models import Scope
from memory_engine.security.signin_limits import LockoutPolicy, SignInLimiter


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

#: Failed sign-ins per user name (from any address) before a lockout, and the lockout length
#: (seconds, the ceiling: refused attempts do not extend it). See ``security.signin_limits``.
MAX_FAILURES = 5
LOCKOUT_SECONDS = 60.0
#: Most user names (and client addresses) whose recent failures are remembered. Names typed at
#: random (unknown users count too) would otherwise grow the table without end; past the bound
#: the entries idle longest are forgotten first. Each admitted failure costs a bcrypt check
#: (~0.2 s) and one address backs off after 5, so evicting a locked name takes many addresses.
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


@dataclass(frozen=True)
class SignInRecord:
    """One audited sign-in attempt.

    Attributes:
        name: the user name as typed (stripped); unknown names are recorded too.
        source: the client address, or None when the caller did not know it.
        outcome: ``success``, ``failure`` (wrong name or password) or ``refused`` (locked or
            backing off; no password was checked).
        reason: for ``refused``, ``account_locked`` or ``source_backoff``; else "".
        retry_s: seconds until the name (or source) may try again; 0 when not limited.
        locked: True when this attempt's failure locked the name or started the source's
            back-off (a lockout event).
    """

    name: str
    source: str | None
    outcome: str
    reason: str = ""
    retry_s: float = 0.0
    locked: bool = False


AUDIT_LOG = logging.getLogger("memory_engine.audit.signin")


def log_sign_in(record: SignInRecord) -> None:
    """The default audit sink: one line per attempt on the ``memory_engine.audit.signin`` logger
    (INFO for a success, WARNING otherwise), never the password."""
    level = logging.INFO if record.outcome == "success" else logging.WARNING
    AUDIT_LOG.log(
        level,
        "sign-in %s name=%r source=%s%s%s",
        record.outcome,
        record.name,
        record.source or "-",
        f" reason={record.reason}" if record.reason else "",
        f" retry_s={record.retry_s:.0f}" + (" lockout" if record.locked else "")
        if record.retry_s
        else "",
    )


class Accounts:
    """Accounts loaded from the ``memory_auth`` mapping of secrets.toml, with sign-in lockout.

    Every attempt is reserved in a ``SignInLimiter`` before its password is hashed (see
    ``security.signin_limits``) and reported to ``audit``.

    Args:
        config: the ``memory_auth`` mapping (``users``, ``oidc_users``); None = no accounts.
        max_tracked: most user names (and most client addresses) whose failures are
            remembered (>= 1); idle entries are pruned on every attempt.
        policy: the lockout limits; default ``LockoutPolicy()`` (5 failures lock a name for
            60 s; a source backs off 1 s, 2 s, 4 s ... up to 15 min after 5 failures).
        audit: called with a ``SignInRecord`` for every attempt; default ``log_sign_in``.
    """

    def __init__(
        self,
        config: Mapping[str, Any] | None,
        *,
        max_tracked: int = MAX_TRACKED_NAMES,
        policy: LockoutPolicy | None = None,
        audit: Callable[[SignInRecord], None] | None = None,
    ) -> None:
        config = config or {}
        self.users: dict[str, Mapping[str, Any]] = dict(config.get("users", {}) or {})
        self.oidc_users: dict[str, Mapping[str, Any]] = dict(config.get("oidc_users", {}) or {})
        self.limiter = SignInLimiter(
            policy
            or LockoutPolicy(
                account_failures=MAX_FAILURES,
                account_lockout_s=LOCKOUT_SECONDS,
                account_window_s=LOCKOUT_SECONDS,
            ),
            max_tracked=max_tracked,
        )
        self._audit = audit or log_sign_in

    @property
    def tracked_names(self) -> int:
        """Number of user names holding failure records (<= ``max_tracked``)."""
        return self.limiter.tracked_names

    def _report(self, record: SignInRecord) -> None:
        try:
            self._audit(record)
        except Exception:  # noqa: BLE001 - a broken sink never opens or blocks a sign-in
            logging.getLogger(__name__).exception("sign-in audit sink failed")

    def sign_in(
        self, name: str, password: str, *, source: str | None = None, now: float | None = None
    ) -> Account:
        """Check a name and password; returns the Account.

        The attempt is reserved (and counted as a failure) before the password is hashed, so
        parallel attempts cannot outrun the lockout; unknown names cost the same bcrypt check as
        known ones.

        Args:
            name: the user name (stripped).
            password: the password as typed.
            source: the client address (the dashboard passes the browser's); None skips the
                per-source back-off (the per-name lockout still applies).
            now: monotonic seconds (tests); default ``time.monotonic()``.

        Raises:
            AuthError: unknown name or wrong password (one message for both), or "too many
                failed sign-ins" (``retry_s`` in the details) while the name is locked or the
                source backs off.
        """
        now = time.monotonic() if now is None else now
        name = name.strip()
        verdict = self.limiter.reserve(name, source, now)
        if verdict.reservation is None:
            wait = verdict.retry_s
            reason = verdict.refusal.value if verdict.refusal else ""
            self._report(SignInRecord(name, source, "refused", reason, wait))
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
            state = self.limiter.state(name, source, now)
            wait = max(state.values())
            self._report(SignInRecord(name, source, "failure", retry_s=wait, locked=wait > 0))
            raise AuthError("wrong name or password")
        self.limiter.release(verdict.reservation)
        self._report(SignInRecord(name, source, "success"))
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
