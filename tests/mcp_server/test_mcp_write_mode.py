"""``memory_write``'s ``mode`` argument: ``raw`` by default, ``extract`` on request, anything
else refused as invalid params (the server-level runs: tests/mcp_server/test_mcp_fresh_data_dir.py)."""

from __future__ import annotations

import pytest

from memory_engine.mcp_server.tools import TOOLS, ToolArgumentError, input_schema, parse_arguments


def test_write_mode_defaults_to_raw_and_accepts_extract() -> None:
    write = TOOLS["memory_write"]
    assert parse_arguments(write, {"content": "x"}).mode == "raw"  # type: ignore[attr-defined]
    args = parse_arguments(write, {"content": "x", "mode": "extract"})
    assert args.mode == "extract"  # type: ignore[attr-defined]
    prop = input_schema(write)["properties"]["mode"]
    assert prop["enum"] == ["raw", "extract"] and prop["default"] == "raw"
    assert "extract" in write.description


@pytest.mark.parametrize("mode", ["magic", "EXTRACT", 1, None])
def test_write_mode_outside_the_enum_is_refused(mode: object) -> None:
    with pytest.raises(ToolArgumentError):
        parse_arguments(TOOLS["memory_write"], {"content": "x", "mode": mode})
