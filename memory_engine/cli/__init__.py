"""``memory-engine`` command line (typer): ``python -m memory_engine.cli`` or the console script."""

from __future__ import annotations


def main() -> None:
    """Entry point of the ``memory-engine`` console script."""
    from memory_engine.cli.app import main as run

    run()
