"""``python -m memory_engine.cli``."""

from memory_engine.cli import main

main()
