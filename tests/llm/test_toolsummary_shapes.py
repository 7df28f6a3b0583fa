"""Tool outputs beyond JSON and test runners: tracebacks, tables, an HTTP response with a JSON
body, a list whose rare status names its records. Conclusions only, never the payload."""

from __future__ import annotations

import json

from memory_engine.llm.toolsummary import summarise

TRACEBACK = (
    'Traceback (most recent call last):\n  File "app.py", line 12, in <module>\n    main()\n'
    '  File "app.py", line 8, in main\n    conn = db.connect(url)\n'
    "ConnectionRefusedError: [Errno 111] Connection refused"
)


def _texts(text: str) -> list[str]:
    return [c.text for c in summarise(text, tool_output=True) or []]


def test_a_traceback_gives_the_error_and_where() -> None:
    assert _texts(TRACEBACK) == [
        "The run failed with ConnectionRefusedError (Connection refused) at app.py line 8"
    ]


def test_a_table_gives_its_rows_statuses_and_ids() -> None:
    table = "订单号 | 金额 | 状态\nC1001 | 299 | 已支付\nC1002 | 120 | 待支付\nC1003 | 88 | 已退款"
    assert _texts("查询结果：共 3 条\n" + table) == [
        "Table of 3 rows: 1 已支付, 1 待支付, 1 已退款 (C1001, C1002, C1003)"
    ]
    assert _texts("id,name,status\n1,alpha,ok\n2,beta,error\n3,gamma,ok") == [
        "Table of 3 rows: 2 ok, 1 error (1, 2, 3)"
    ]


def test_an_http_response_body_is_read_too() -> None:
    body = json.dumps({"user_id": 88, "plan": "pro", "renews_at": "2026-04-01"})
    texts = _texts(f"HTTP/1.1 200 OK\nContent-Type: application/json\n\n{body}")
    assert texts == ["User 88: renews at 2026-04-01"]
    error = json.dumps({"error": "plan expired"})
    texts = _texts(f"HTTP/1.1 402 Payment Required\n\n{error}")
    assert texts[0] == "HTTP response 402 Payment Required" and len(texts) == 2


def test_a_rare_status_names_its_records() -> None:
    rows = [{"工单号": f"T-{i}", "状态": "已关闭"} for i in range(20)]
    rows.append({"工单号": "T-9031", "状态": "处理中"})
    (first, *_) = _texts(json.dumps({"查询": "本周工单", "工单": rows}, ensure_ascii=False))
    assert first == "Tool returned 21 records for 本周工单: 20 已关闭, 1 处理中 (T-9031)"
