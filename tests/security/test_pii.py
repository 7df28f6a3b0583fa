"""PII and secret detection: checksums, Chinese and English text, redaction."""

from __future__ import annotations

import pytest

from memory_engine.security.pii import PiiKind, cn_id_valid, detect, luhn_valid, redact

VALID_ID = "11010519491231002X"  # GB 11643 specimen number (valid checksum)


def kinds(text: str) -> list[PiiKind]:
    return [f.kind for f in detect(text)]


def test_cn_id_checksum() -> None:
    assert cn_id_valid(VALID_ID)
    assert not cn_id_valid("110105194912310021")  # wrong check character
    assert not cn_id_valid("110105194913310029")  # month 13


def test_luhn() -> None:
    assert luhn_valid("4111 1111 1111 1111")
    assert not luhn_valid("4111 1111 1111 1112")
    assert not luhn_valid("123")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我的邮箱是 zhang.san@example.com，有事联系", [PiiKind.EMAIL]),
        ("call me at +1 (415) 555-0132 tomorrow", [PiiKind.PHONE]),
        ("手机号13812345678，晚上打", [PiiKind.CN_MOBILE]),
        ("电话 +86 138 1234 5678", [PiiKind.CN_MOBILE]),
        (f"身份证号{VALID_ID}请保密", [PiiKind.CN_ID]),
        ("card 4111-1111-1111-1111 exp 12/29", [PiiKind.BANK_CARD]),
        ("银行卡 6222 0000 0000 0000 003", []),  # fails Luhn
        ("key sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123", [PiiKind.SECRET]),
        ("AWS AKIAIOSFODNN7EXAMPLE in the log", [PiiKind.SECRET]),
        ("token ghp_" + "a" * 36, [PiiKind.SECRET]),
        ("api_key = 9f8e7d6c5b4a3210", [PiiKind.SECRET]),
        ("数据库密码是 Tr0ub4dor&3", [PiiKind.SECRET]),
        ("订单号 20240508123456 已发货", []),
        ("会议在 2024-05-08 14:00", []),
        ("I prefer aisle seats and green tea", []),
    ],
)
def test_detect_kinds(text: str, expected: list[PiiKind]) -> None:
    assert kinds(text) == expected


def test_invalid_id_is_not_reported_as_an_id() -> None:
    assert PiiKind.CN_ID not in kinds("号码 110105194912310021")


def test_redact_replaces_every_span_and_keeps_the_rest() -> None:
    text = f"张三，邮箱 a@b.cn，手机 13812345678，身份证 {VALID_ID}。喜欢川菜"
    redacted, findings = redact(text)
    assert redacted == "张三，邮箱 [EMAIL]，手机 [PHONE]，身份证 [CN_ID]。喜欢川菜"
    assert [f.kind for f in findings] == [PiiKind.EMAIL, PiiKind.CN_MOBILE, PiiKind.CN_ID]
    for f in findings:
        d = f.to_dict()
        assert "*" in str(d["masked"]) and text[f.start : f.end] != d["masked"]


def test_redact_of_clean_text_is_identity() -> None:
    assert redact("nothing to hide here") == ("nothing to hide here", [])
