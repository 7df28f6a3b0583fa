"""Dashboard accounts: role matrix, tenant grants, bcrypt sign-in, lockout, secrets writing."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from memory_engine.errors import InvalidInputError, TenantScopeError
from memory_engine.security.auth import (
    LOCKOUT_SECONDS,
    MAX_FAILURES,
    Account,
    Accounts,
    Action,
    AuthError,
    PermissionDeniedError,
    Role,
    add_user,
)

REPO = Path(__file__).resolve().parents[2]

#: Expected permission per (role, action) in a granted tenant.
MATRIX = {
    Role.VIEWER: {Action.READ},
    Role.EDITOR: {Action.READ, Action.EDIT, Action.MAINTAIN},
    Role.ADMIN: set(Action),
}


@pytest.mark.parametrize("role", list(Role))
@pytest.mark.parametrize("action", list(Action))
def test_role_matrix(role: Role, action: Action) -> None:
    tenants = ("*",) if role is Role.ADMIN else ("acme",)
    account = Account("u", role, tenants)
    allowed = action in MATRIX[role]
    assert account.can(action, "acme") is allowed
    if allowed:
        account.require(action, "acme")
    else:
        with pytest.raises(PermissionDeniedError):
            account.require(action, "acme")


@pytest.mark.parametrize("role", [Role.VIEWER, Role.EDITOR])
def test_tenant_grants_bound_every_action(role: Role) -> None:
    account = Account("u", role, ("acme",))
    assert account.may_see("acme") and not account.may_see("globex")
    for action in Action:
        assert not account.can(action, "globex")


def test_admin_limited_to_granted_tenants() -> None:
    admin = Account("a", Role.ADMIN, ("acme",))
    assert admin.can(Action.PURGE, "acme") and not admin.can(Action.PURGE, "globex")


@pytest.fixture(scope="module")
def secrets_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("auth") / ".streamlit" / "secrets.toml"
    path.parent.mkdir()
    path.write_text('[other]\nkeep = "me"\n', "utf-8")
    add_user(path, "alice", "correct horse 马", Role.ADMIN, ["*"])
    add_user(path, "bob", "bob-password", Role.VIEWER, ["acme"])
    return path


def _accounts(path: Path) -> Accounts:
    return Accounts(tomllib.loads(path.read_text("utf-8"))["memory_auth"])


def test_add_user_writes_hashes_and_keeps_other_sections(secrets_file: Path) -> None:
    data = tomllib.loads(secrets_file.read_text("utf-8"))
    assert data["other"] == {"keep": "me"}
    assert data["memory_auth"]["mode"] == "password"
    alice = data["memory_auth"]["users"]["alice"]
    assert alice["password_hash"].startswith("$2b$12$") and "horse" not in alice["password_hash"]
    assert stat.S_IMODE(os.stat(secrets_file).st_mode) == 0o600


def test_sign_in(secrets_file: Path) -> None:
    accounts = _accounts(secrets_file)
    alice = accounts.sign_in("alice", "correct horse 马")
    assert alice.role is Role.ADMIN and alice.all_tenants and alice.actor == "dashboard:alice"
    with pytest.raises(AuthError, match="wrong name or password"):
        accounts.sign_in("alice", "wrong")
    with pytest.raises(AuthError, match="wrong name or password"):
        accounts.sign_in("mallory", "whatever")
    for too_long in ("x" * 73, "马" * 30):  # over bcrypt's 72 bytes: wrong, not a ValueError
        with pytest.raises(AuthError, match="wrong name or password"):
            accounts.sign_in("alice", too_long)


def test_lockout_after_repeated_failures(secrets_file: Path) -> None:
    accounts = _accounts(secrets_file)
    for i in range(MAX_FAILURES):
        with pytest.raises(AuthError, match="wrong"):
            accounts.sign_in("bob", "nope", now=100.0 + i)
    with pytest.raises(AuthError, match="too many"):
        accounts.sign_in("bob", "bob-password", now=110.0)  # right password, still locked
    assert accounts.sign_in("bob", "bob-password", now=104.0 + LOCKOUT_SECONDS + 1).name == "bob"


@pytest.mark.parametrize(
    ("name", "password", "role", "tenants", "error"),
    [
        ("eve", "short", Role.VIEWER, ["acme"], InvalidInputError),
        ("eve", "long-enough", "root", ["acme"], InvalidInputError),
        ("eve", "long-enough", Role.EDITOR, ["*"], InvalidInputError),
        ("eve", "long-enough", Role.EDITOR, ["bad tenant!"], TenantScopeError),
        ("e v e", "long-enough", Role.EDITOR, ["acme"], InvalidInputError),
    ],
)
def test_add_user_refuses_bad_input(
    tmp_path: Path, name: str, password: str, role: str, tenants: list[str], error: type
) -> None:
    path = tmp_path / "secrets.toml"
    with pytest.raises(error):
        add_user(path, name, password, role, tenants)
    assert not path.exists()


def test_refresh_applies_removal_and_new_grants() -> None:
    bob = Account("bob", Role.EDITOR, ("acme", "globex"))
    accounts = Accounts({"users": {"bob": {"role": "viewer", "tenants": ["acme"]}}})
    assert accounts.refresh(bob) == Account("bob", Role.VIEWER, ("acme",))
    assert Accounts({"users": {}}).refresh(bob) is None
    assert Accounts({"users": {"bob": {"role": "root", "tenants": ["acme"]}}}).refresh(bob) is None
    oidc = Account("li@example.cn", Role.EDITOR, ("acme",), via="oidc")
    assert accounts.refresh(oidc) is None  # not a password account's entry


def test_oidc_mapping() -> None:
    accounts = Accounts({"oidc_users": {"li@example.cn": {"role": "editor", "tenants": ["acme"]}}})
    assert accounts.for_oidc("li@example.cn").role is Role.EDITOR
    with pytest.raises(AuthError):
        accounts.for_oidc("stranger@example.com")


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_cli_user_add(tmp_path: Path, newline: str) -> None:
    path = tmp_path / "secrets.toml"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "memory_engine.cli",
            "user",
            "add",
            "carol",
            "--role",
            "editor",
            "--tenant",
            "acme",
            "--tenant",
            "globex",
            "--secrets",
            str(path),
            "--password-stdin",
        ],
        input=f"carol-password{newline}",
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    carol = _accounts(path).sign_in("carol", "carol-password")
    assert carol.tenants == ("acme", "globex") and carol.role is Role.EDITOR
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "memory_engine.cli",
            "user",
            "add",
            "dave",
            "--role",
            "editor",
            "--tenant",
            "acme",
            "--secrets",
            str(path),
            "--password-stdin",
        ],
        input="short\n",
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "8 characters" in bad.stderr
