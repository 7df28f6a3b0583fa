"""``memory-engine user``: manage dashboard accounts in ``.streamlit/secrets.toml``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from memory_engine.auth import Role, add_user

DEFAULT_SECRETS = Path(".streamlit/secrets.toml")

users_app = typer.Typer(no_args_is_help=True, help="Dashboard accounts (bcrypt-hashed).")


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
    from memory_engine.cli import _run

    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    account = _run(lambda: add_user(secrets, name, password, role, list(tenant)))
    typer.echo(
        f"saved {account.name} ({account.role.value}; tenants {', '.join(account.tenants)}) "
        f"in {secrets}",
        err=True,
    )
