"""Command errors, Go test runs, Chinese test summaries and Chinese ``键：值`` listings reduced
to one conclusion each; never a verbatim stretch of the payload."""

from __future__ import annotations

import pytest

from memory_engine.llm.toolsummary import summarise

GIT_PUSH = (
    "To github.com:acme/shop.git\n ! [rejected]        main -> main (fetch first)\n"
    "error: failed to push some refs to 'github.com:acme/shop.git'\n"
    "hint: Updates were rejected because the remote contains work that you do"
)
RUSTC = (
    "   Compiling shop v0.3.1 (/home/dev/shop)\nerror[E0308]: mismatched types\n"
    "  --> src/cart.rs:88:20\n   |\n88 |     let total: u32 = price * qty as f64;\n"
    'error: could not compile `shop` (bin "shop") due to 1 previous error'
)
NPM = (
    "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\n"
    "npm ERR! Found: react@18.2.0\nnpm ERR! Could not resolve dependency:"
)
GO_TEST = (
    "--- FAIL: TestParseConfig (0.00s)\n    config_test.go:42: expected port 8080, got 0\n"
    "FAIL\nFAIL\tgithub.com/acme/api/config\t0.012s\nok  \tgithub.com/acme/api/server\t0.145s"
)
ZH_TESTS = (
    "测试结果：共 120 个用例，通过 117 个，失败 3 个\n"
    "失败用例：test_refund_partial, test_refund_full, test_coupon_expired\n耗时 48.2 秒"
)
ZH_PARCEL = (
    "快递单号：YT8812345678\n物流状态：派送中\n当前位置：上海市浦东新区张江营业部\n"
    "派送员：李师傅 138****5521"
)


def _texts(text: str) -> list[str]:
    return [c.text for c in summarise(text, tool_output=True) or []]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (GIT_PUSH, "git push was rejected: failed to push some refs to"),
        (RUSTC, "The command failed with E0308 (mismatched types) at src/cart.rs line 88"),
        (NPM, "The command failed with ERESOLVE (unable to resolve dependency)"),
        (GO_TEST, "TestParseConfig failed"),  # its package is not repeated
        (ZH_TESTS, "测试结果：失败 3 个，通过 117 个（共 120 个）；失败用例 test_refund_partial"),
        (ZH_PARCEL, "快递单号 YT8812345678：派送中"),
        (
            "错误：数据库迁移失败，表 orders 已存在\n部署已回滚",
            "命令执行失败：数据库迁移失败，表 orders 已存在",
        ),
    ],
)
def test_each_shape_gives_one_conclusion(text: str, said: str) -> None:
    assert _texts(text) == [said]


def test_conclusions_hold_no_long_slice_of_the_payload() -> None:
    for text in (GIT_PUSH, RUSTC, NPM, GO_TEST, ZH_TESTS, ZH_PARCEL):
        for said in _texts(text):
            assert not any(said[i : i + 40] in text for i in range(max(1, len(said) - 39)))


def test_plain_text_and_success_conclude_nothing_here() -> None:
    assert summarise("Already up to date.", tool_output=True) is None
    assert summarise("error: failed to push some refs", tool_output=False) is None


def test_more_shapes_give_their_outcome() -> None:
    """A MySQL error code, a Java exception in a thread, a short status line with what it was
    done to, and a short list of plain records (the first ones named)."""
    assert _texts(
        "ERROR 1045 (28000): Access denied for user 'app'@'10.0.0.5' (using password: YES)"
    ) == ["The command failed with 1045 (Access denied for user)"]
    java = (
        'Exception in thread "main" java.lang.NullPointerException: Cannot invoke '
        '"User.getName()" because "u" is null\n\tat com.acme.App.main(App.java:14)'
    )
    (said,) = _texts(java)
    assert said.startswith("The run failed with NullPointerException (")
    assert not any(said[i : i + 40] in java for i in range(len(said) - 39))
    events = (
        '{"events": [{"title": "Design review", "start": "2026-03-12T10:00:00+08:00"}, '
        '{"title": "1:1 with Priya", "start": "2026-03-12T15:00:00+08:00"}]}'
    )
    texts = " ".join(_texts(events))
    assert "Design review" in texts and "2026-03-12 10:00" in texts and "1:1 with Priya" in texts
