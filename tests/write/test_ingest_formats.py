"""Ingest format parsers: OpenAI chat (JSON, JSONL), LoCoMo, plain text; typed errors."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memory_engine.errors import IngestFormatError
from memory_engine.write.ingest import parse_time, read_locomo, read_openai, read_text


def test_openai_json_list_skips_system_and_tools(tmp_path: Path) -> None:
    p = tmp_path / "chat.json"
    p.write_text(
        json.dumps(
            [
                {"role": "system", "content": "You are helpful"},
                {
                    "role": "user",
                    "content": "我对花生过敏",
                    "timestamp": "2024-03-01T08:00:00+08:00",
                },
                {"role": "assistant", "content": [{"type": "text", "text": "Noted."}]},
                {"role": "assistant", "content": None, "tool_calls": [{"id": "x"}]},
                {"role": "tool", "content": '{"result": 1}'},
            ],
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )
    turns = read_openai(p)
    assert [t.speaker for t in turns] == ["user", "assistant"]
    assert turns[0].content() == 'user said, "我对花生过敏"'
    assert turns[0].observed_at == datetime(2024, 3, 1, 0, 0, tzinfo=UTC)
    assert turns[1].text == "Noted."


def test_openai_jsonl_and_messages_object(tmp_path: Path) -> None:
    p = tmp_path / "chat.jsonl"
    p.write_text('{"role": "user", "content": "a"}\n\n{"role": "user", "content": "b"}\n')
    assert [t.text for t in read_openai(p)] == ["a", "b"]
    q = tmp_path / "chat2.json"
    q.write_text(json.dumps({"messages": [{"role": "user", "content": "c"}]}))
    assert [t.text for t in read_openai(q)] == ["c"]


@pytest.mark.parametrize("body", ["not json at all {", '{"a": 1}', '[{"content": "no role"}]'])
def test_openai_bad_input_is_typed(tmp_path: Path, body: str) -> None:
    p = tmp_path / "bad.json"
    p.write_text(body)
    with pytest.raises(IngestFormatError):
        read_openai(p)


def test_locomo_small_sample(tmp_path: Path) -> None:
    sample = {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bob",
            "session_2_date_time": "1:14 pm on 25 May, 2023",
            "session_2": [{"speaker": "Bob", "dia_id": "D2:1", "text": "Later"}],
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {
                    "speaker": "Ann",
                    "dia_id": "D1:1",
                    "text": "Look!",
                    "blip_caption": "a photo of a dog",
                },
            ],
        },
        "qa": [],
    }
    p = tmp_path / "locomo.json"
    p.write_text(json.dumps([sample]))
    turns = read_locomo(p)["conv-x"]
    assert [t.turn_id for t in turns] == ["D1:1", "D2:1"]  # session order, not key order
    assert turns[0].content() == 'Ann said, "Look! [shared image: a photo of a dog]"'
    assert turns[0].observed_at == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    with pytest.raises(IngestFormatError):
        read_locomo(p, "conv-missing")


def test_text_paragraphs(tmp_path: Path) -> None:
    p = tmp_path / "notes.txt"
    p.write_text("First para\nstill first.\n\n\nSecond 第二段。\n")
    assert [t.text for t in read_text(p)] == ["First para\nstill first.", "Second 第二段。"]


def test_parse_time_variants() -> None:
    assert parse_time(None) is None
    assert parse_time(0) == datetime(1970, 1, 1, tzinfo=UTC)
    assert parse_time("2023-05-24").tzinfo is not None
    with pytest.raises(IngestFormatError):
        parse_time("not a date")


@pytest.mark.parametrize(
    "payload",
    [
        [
            {
                "sample_id": "c",
                "conversation": {"session_1": [{"speaker": "A", "dia_id": "D1:1", "text": 123}]},
            }
        ],
        [{"sample_id": "c", "conversation": {"session_1": ["just a string"]}}],
        [{"sample_id": "c", "conversation": [1, 2]}],
        [{"sample_id": "c", "conversation": {"session_1": {"not": "a list"}}}],
    ],
)
def test_locomo_malformed_is_typed(tmp_path: Path, payload: object) -> None:
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(payload))
    with pytest.raises(IngestFormatError):
        read_locomo(p)


def test_non_utf8_and_bool_timestamp_are_typed(tmp_path: Path) -> None:
    p = tmp_path / "latin1.txt"
    p.write_bytes("café".encode("latin-1"))
    with pytest.raises(IngestFormatError, match="UTF-8"):
        read_text(p)
    q = tmp_path / "chat.json"
    q.write_text(json.dumps([{"role": "user", "content": "hi", "timestamp": True}]))
    with pytest.raises(IngestFormatError):
        read_openai(q)
