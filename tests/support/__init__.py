"""Test helpers shared by several test modules (local OpenAI-compatible stub, fixtures)."""
