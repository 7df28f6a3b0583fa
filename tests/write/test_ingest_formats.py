"""Ingest format parsers: OpenAI chat (JSON, JSONL), LoCoMo, plain text; typed errors."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memory_engine.errors import IngestFormatError
from memory_engine.models import ID_PATTERN
from memory_engine.write.ingest import Turn, parse_time, read_locomo, read_openai, read_text


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
    # a Chinese turn gets the Chinese speaker template (docs: ingest formats)
    assert turns[0].content() == "用户说：“我对花生过敏”"
    assert turns[1].content() == 'assistant said, "Noted."'  # English unchanged
    # one chat file is one session; turns are numbered 0, 1, ... (system/tool messages skipped)
    assert [(t.session_id, t.turn_index) for t in turns] == [("chat", 0), ("chat", 1)]
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
    # explicit structure: session <sample>-s<n>, turn = position in the session from 1
    assert [(t.session_id, t.turn_index) for t in turns] == [("conv-x-s1", 1), ("conv-x-s2", 1)]
    assert turns[0].content() == 'Ann said, "Look! [shared image: a photo of a dog]"'
    assert turns[0].observed_at == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    with pytest.raises(IngestFormatError):
        read_locomo(p, "conv-missing")


def test_text_paragraphs(tmp_path: Path) -> None:
    p = tmp_path / "notes.txt"
    p.write_text("First para\nstill first.\n\n\nSecond 第二段。\n")
    assert [t.text for t in read_text(p)] == ["First para\nstill first.", "Second 第二段。"]
    # a document has no conversation structure: paragraph refs p0, p1 are not turns
    assert all(t.session_id is None and t.turn_index is None for t in read_text(p))


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


def test_openai_sessions_from_file_message_or_caller(tmp_path: Path) -> None:
    p = tmp_path / "support chat.json"
    p.write_text(
        json.dumps(
            {
                "id": "ticket-7",
                "messages": [
                    {"role": "user", "content": "a"},
                    {"role": "system", "content": "not a turn"},
                    {"role": "assistant", "content": "b"},
                    {"role": "user", "content": "c", "session_id": "other"},
                    {"role": "user", "content": "d"},
                ],
            }
        )
    )
    got = [(t.text, t.session_id, t.turn_index) for t in read_openai(p)]
    assert got == [
        ("a", "ticket-7", 0),
        ("b", "ticket-7", 1),
        ("c", "other", 0),
        ("d", "ticket-7", 2),
    ]
    assert {t.session_id for t in read_openai(p, "s-9")} == {"s-9", "other"}
    q = tmp_path / "support chat.jsonl"
    q.write_text('{"role": "user", "content": "x"}\n')
    assert read_openai(q)[0].session_id == "support-chat"  # from the file name
    zh = tmp_path / "对话.json"
    zh.write_text('[{"role": "user", "content": "你好"}]', encoding="utf-8")
    assert ID_PATTERN.match(read_openai(zh)[0].session_id or "")
    bad = tmp_path / "bad-session.json"
    bad.write_text(json.dumps([{"role": "user", "content": "x", "session_id": "a b"}]))
    with pytest.raises(IngestFormatError, match="session id"):
        read_openai(bad)


@pytest.mark.parametrize(
    ("speaker", "text", "content"),
    [
        ("user", "我对花生过敏", "用户说：“我对花生过敏”"),
        ("assistant", "好的，已记下。", "助手说：“好的，已记下。”"),
        ("小明", "我们最近配置的 rerank 精排模型是 bge-reranker", "小明说：“我们最近配置的 rerank 精排模型是 bge-reranker”"),
        ("user", "I am allergic to peanuts", 'user said, "I am allergic to peanuts"'),
        ("Caroline", "I went to the LGBTQ support group", 'Caroline said, "I went to the LGBTQ support group"'),
        ("user", "プロジェクト記憶の設定", "user: プロジェクト記憶の設定"),
        ("user", "deploy 到 staging cluster 然后 rollback the release", "user: deploy 到 staging cluster 然后 rollback the release"),
        (None, "我对花生过敏", "我对花生过敏"),
    ],
)  # fmt: skip
def test_speaker_template_follows_the_turn_script(
    speaker: str | None, text: str, content: str
) -> None:
    assert Turn(speaker=speaker, text=text).content() == content


def test_chinese_turn_with_image_caption() -> None:
    turn = Turn(speaker="user", text="看看我的狗", metadata={"image_caption": "a dog"})
    assert turn.content() == "用户说：“看看我的狗［图片：a dog］”"


def test_turn_index_is_typed() -> None:
    with pytest.raises(ValueError):
        Turn(text="x", turn_index=-1)
    with pytest.raises(ValueError):
        Turn(text="x", turn_index="3")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Turn(text="x", turn_index=True)
