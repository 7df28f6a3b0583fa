"""``memory-engine user``: manage dashboard accounts in ``.streamlit/secrets.toml``."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path
from typing import Annotated

import typer

from memory_engine.cli.common import app, run
from memory_engine.errors import ConfigError
from memory_engine.security.auth import Account, Role, add_user

DEFAULT_SECRETS = Path(".streamlit/secrets.toml")

users_app = typer.Typer(no_args_is_help=True, help="Dashboard accounts (bcrypt-hashed).")
app.add_typer(users_app, name="user")


@users_app.command("add")
def user_add(
    name: str,
    role: Annotated[Role, typer.Option(help="viewer, editor or admin.")],
    tenant: Annotated[
        list[str], typer.Option(help="Granted tenant id; repeat for several; '*' = all (admin).")
    ],
    secrets: Annotated[Path, typer.Option(help="secrets.toml to write.")] = DEFAULT_SECRETS,
    password_stdin: Annotated[
        bool, typer.Option(help="Read the password from stdin instead of prompting.")
    ] = False,
) -> None:
    """Create or replace an account; the password is prompted for (or read from stdin)."""
    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    account = run(lambda: _add(secrets, name, password, role, list(tenant)))
    typer.echo(
        f"saved {account.name} ({account.role.value}; tenants {', '.join(account.tenants)}) "
        f"in {secrets}",
        err=True,
    )


def _add(secrets: Path, name: str, password: str, role: Role, tenants: list[str]) -> Account:
    """``add_user``, with an unreadable or malformed secrets file as one typed error."""
    try:
        return add_user(secrets, name, password, role, tenants)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{secrets} is not valid TOML ({exc}); fix it first") from exc
    except OSError as exc:
        raise ConfigError(f"cannot use {secrets}: {exc.strerror or exc}") from exc
