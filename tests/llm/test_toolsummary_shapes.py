"""Tool outputs beyond JSON and test runners: tracebacks, tables, an HTTP response with a JSON
body, a list whose rare status names its records. Conclusions only, never the payload."""

from __future__ import annotations

import json
import re

import pytest

from memory_engine.llm.toolsummary import status_lines, summarise

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
        "Table of 3 rows: 2 ok, 1 error (2)"  # the failing row is named
    ]


def test_an_http_response_body_is_read_too() -> None:
    body = json.dumps({"user_id": 88, "plan": "pro", "renews_at": "2026-04-01"})
    texts = _texts(f"HTTP/1.1 200 OK\nContent-Type: application/json\n\n{body}")
    assert texts == ["User 88: renews at 2026-04-01"]
    error = json.dumps({"error": "plan expired"})
    texts = _texts(f"HTTP/1.1 402 Payment Required\n\n{error}")
    # one output, one fact: the status and what the body says, in one line
    assert texts == ["HTTP response 402 Payment Required: plan expired"]
    # a long body stays one fact with the status (cut, never a second memory)
    error = json.dumps(
        {
            "error": "upstream_timeout",
            "message": "acquirer did not respond within 10000ms",
            "service": "payments-gateway",
        }
    )
    (text,) = _texts(f"HTTP/1.1 503 Service Unavailable\nretry-after: 30\n\n{error}")
    assert text.startswith("HTTP response 503 Service Unavailable: ") and "upstream_timeout" in text
    (text,) = _texts('HTTP/1.1 403 Forbidden\n{"code":40301,"msg":"签名校验失败"}')
    assert "403" in text and "签名校验失败" in text


def test_a_record_without_an_id_key_is_named_by_what_it_is_about() -> None:
    flight = {
        "flight": "UA 837",
        "status": "Delayed",
        "scheduledDeparture": "11:05",
        "estimatedDeparture": "15:40",
        "delayReason": "late inbound aircraft",
    }
    (text,) = _texts(json.dumps(flight))
    assert text.startswith("Flight UA 837 is Delayed: late inbound aircraft")
    assert "estimated departure 15:40" in text


def test_an_alert_group_names_its_alerts() -> None:
    alert = {
        "status": "firing",
        "alerts": [
            {
                "labels": {"alertname": "HighErrorRate", "service": "checkout-api"},
                "annotations": {"summary": "checkout-api 5xx error rate 7.3% over last 10m"},
            }
        ],
    }
    (text,) = _texts(json.dumps(alert))
    assert "firing" in text and "checkout-api 5xx error rate 7.3%" in text


def test_chinese_reasons_and_times_are_kept() -> None:
    release = {
        "发布单": "REL-4471",
        "结果": "失败",
        "原因": "健康检查失败",
        "处理": "已自动回滚至 v5.1.3",
    }
    (text,) = _texts(json.dumps(release, ensure_ascii=False))
    assert "REL-4471" in text and "回滚" in text and "健康检查失败" in text
    booking = "预订编号：MR-20260312-07\n会议室：3F 望京厅\n时间：2026年3月12日（周四）14:00-15:00"
    (text,) = _texts(booking)
    assert "MR-20260312-07" in text and "14:00-15:00" in text


def test_a_rare_status_names_its_records() -> None:
    rows = [{"工单号": f"T-{i}", "状态": "已关闭"} for i in range(20)]
    rows.append({"工单号": "T-9031", "状态": "处理中"})
    (first, *_) = _texts(json.dumps({"查询": "本周工单", "工单": rows}, ensure_ascii=False))
    assert first == "Tool returned 21 records for 本周工单: 20 已关闭, 1 处理中 (T-9031)"


def test_a_failing_test_run_is_one_conclusion_with_its_failures() -> None:
    out = (
        "collected 42 items\n\n"
        "FAILED tests/test_api.py::test_create_user - AssertionError: expected 201, got 500\n"
        "FAILED tests/test_api.py::test_delete_user - KeyError: 'id'\n"
        "==================== 2 failed, 40 passed in 3.21s ===================="
    )
    assert _texts(out) == [
        "Test run: 2 failed, 40 passed; test_create_user failed: expected 201, got 500; "
        "test_delete_user failed: KeyError"
    ]
    jest = "PASS src/a.test.js\nFAIL src/cart.test.js\n\nTests:       1 failed, 11 passed, 12 total"
    assert _texts(jest) == ["Test run: 1 failed, 11 passed; src/cart.test.js failed"]


def test_sql_shell_and_aligned_tables() -> None:
    psql = (
        " id | customer | status  | amount\n----+----------+---------+--------\n"
        " 17 | Alice    | paid    | 120.50\n 18 | Bob      | overdue |  99.00\n"
        " 21 | Carol    | overdue |  45.00\n(3 rows)\n"
    )
    assert _texts(psql) == ["Table of 3 rows: 2 overdue, 1 paid (17, 18, 21)"]
    pods = (
        "NAME                 READY   STATUS             RESTARTS   AGE\n"
        "web-5d9f7c8b6-x2k4p  1/1     Running            0          2d\n"
        "worker-7c6d9f-8hj2m  1/1     Running            0          2d\n"
        "db-0                 1/1     Running            0          9d\n"
        "api-6f8b7d9c5-q9w3e  0/1     CrashLoopBackOff   12         3h"
    )
    assert _texts(pods) == ["Table of 4 rows: 3 Running, 1 CrashLoopBackOff (api-6f8b7d9c5-q9w3e)"]
    df = (
        "$ df -h /\nFilesystem      Size  Used Avail Use% Mounted on\n"
        "/dev/sda1        50G   47G  3.0G  94% /"
    )
    assert _texts(df) == ["Table of 1 row; /dev/sda1 use% 94%"]


def test_a_log_gives_its_errors_and_ids_never_its_lines() -> None:
    log = (
        "2026-03-09 14:02:11 INFO  [payment-service] charging order O-7781\n"
        "2026-03-09 14:02:41 ERROR [payment-service] Timeout calling Stripe API after 30s "
        "(order_id=O-7781)\n"
        "2026-03-09 14:02:42 WARN  [payment-service] retrying (1/3)\n"
        "2026-03-09 14:03:15 ERROR [payment-service] giving up on order O-7781 after 3 retries"
    )
    assert _texts(log) == [
        "2 errors logged by payment-service: Timeout calling Stripe API after (O-7781)"
    ]
    zh = (
        "2026-03-09 10:00:01 INFO 收到支付回调 order=P-2231\n"
        "2026-03-09 10:00:01 ERROR 支付回调处理失败 order=P-2231 原因=签名校验错误\n"
        "2026-03-09 10:00:05 INFO 健康检查通过"
    )
    assert _texts(zh) == ["日志记录了1条错误：支付回调处理失败 order=P-2231 原因=签名校验错误"]
    assert _texts("2026-03-09 10:00:01 INFO started\n2026-03-09 10:00:02 INFO ready") == []


def test_a_bare_success_concludes_nothing_and_an_envelope_is_opened() -> None:
    assert _texts(json.dumps({"status": "ok"})) == []
    user = {
        "status": "ok",
        "data": {"user": {"id": 4412, "name": "Li Wei", "renews_at": "2026-04-01"}},
    }
    assert _texts(json.dumps(user)) == ["User 4412: renews at 2026-04-01"]
    balance = {"code": 0, "msg": "success", "data": {"账户": "6222-0001", "余额": "1280.50"}}
    assert _texts(json.dumps(balance, ensure_ascii=False)) == ["账户 6222-0001，余额 1280.50"]
    limited = {"error": {"code": 429, "message": "Rate limit exceeded", "retry_after": 60}}
    assert _texts(json.dumps(limited)) == ["Error 429: Rate limit exceeded"]
    flight = {"航班号": "CA1234", "状态": "延误", "预计起飞": "2026-03-11T10:15:00+08:00"}
    assert _texts(json.dumps(flight, ensure_ascii=False)) == [
        "航班号 CA1234：延误，预计起飞 2026-03-11 10:15"
    ]


def test_a_cargo_run_gives_its_totals_and_failing_test() -> None:
    run = (
        "running 42 tests\ntest lexer::tests::numbers ... ok\n"
        "test parser::tests::handles_empty_input ... FAILED\n\nfailures:\n"
        "    parser::tests::handles_empty_input\n\n"
        "test result: FAILED. 41 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out"
    )
    assert _texts(run) == [
        "Test run: 1 failed, 41 passed; parser::tests::handles_empty_input failed"
    ]


def test_a_status_line_keeps_what_it_is_about_and_its_counts() -> None:
    line = (
        "rollout complete: web-frontend v2.14.0 -> production: SUCCESS "
        "(3/3 replicas healthy, 0 restarts, took 4m12s)"
    )
    (text,) = [c.text for c in status_lines(line)]
    assert "v2.14.0" in text and "SUCCESS" in text and "web-frontend" in text
    (text,) = [
        c.text for c in status_lines("导入完成：成功 9987 条，失败 13 条，明细已写入 errors.csv")
    ]
    assert "9987" in text and "13" in text


@pytest.mark.parametrize(
    ("payload", "leak"),
    [
        ({"key": "OPS-12", "status": "open", "summary": "DB pw is Tr0ub4dor&3"}, "Tr0ub4dor"),
        ({"id": "u_42", "status": "created", "message": "Temporary password: Hx9!kq2Lz0"}, "Hx9"),
        ({"订单号": "A1029", "状态": "失败", "原因": "支付密码错误：123456 已锁定"}, "123456"),
        ({"订单号": "B77", "状态": "已发货", "联系信息": "张三 身份证110101199003077777"}, "1101"),
        ({"id": "p1", "状态": "失败", "银行卡信息": "6222020200112233445"}, "6222"),
        ({"id": "inbox", "status": "ok", "messages": [{"id": "e1", "message": "Your code is 492817"}]}, "492817"),
        ({"id": "b7", "status": "partial", "items": [{"id": "i1", "error": "card 4242424242424242 declined"}]}, "4242"),
        ({"user": "bob", "password": "hunter22", "status": "created"}, "hunter22"),
    ],
)  # fmt: skip
def test_a_secret_or_personal_number_is_never_quoted(payload: dict, leak: str) -> None:
    texts = _texts(json.dumps(payload, ensure_ascii=False))
    assert not any(leak in t for t in texts), texts


@pytest.mark.parametrize(
    "line",
    [
        "Created API key sk-proj-4f9a8b7c6d5e for service billing",
        "Token rotated: new token ghp-a1b2c3d4e5f6 saved",
        "Account created for jane-doe, temp password xk-29-pq-77",
        "Reset link sent: https://x.io/r/ab12-cd34-ef56-7890",
    ],
)
def test_a_status_line_never_quotes_a_secret(line: str) -> None:
    said = " ".join(c.text for c in status_lines(line))
    assert not re.search(r"sk-proj|ghp-|xk-29|ab12-cd34", said), said


def test_a_message_that_only_names_a_secret_is_kept() -> None:
    (text,) = _texts(
        json.dumps({"errcode": 40001, "errmsg": "invalid credential, access_token is invalid"})
    )
    assert "invalid credential" in text


@pytest.mark.parametrize(
    "payload",
    [
        {"status": "ok", "msg": "Service is running"},
        {"status": "healthy", "msg": "all good"},
        {"status": "UP", "summary": "All systems operational"},
    ],
)
def test_a_health_check_with_a_message_concludes_nothing(payload: dict) -> None:
    assert _texts(json.dumps(payload)) == []


def test_a_record_named_by_a_name_key_keeps_its_other_values() -> None:
    (text,) = _texts(json.dumps({"city": "Kyoto", "forecast": "rain", "app": "weather-cli"}))
    assert "Kyoto" in text and "rain" in text


def test_cargo_totals_add_up_over_test_binaries_and_bad_times_are_ignored() -> None:
    run = (
        "test result: ok. 10 passed; 0 failed; 0 ignored\n\n"
        "test result: FAILED. 3 passed; 2 failed; 0 ignored"
    )
    assert _texts(run) == ["Test run: 2 failed, 13 passed"]
    (text,) = _texts(json.dumps({"id": "e1", "status": "open", "start": "25:99"}))
    assert "25:99" not in text


def test_json_nested_deeper_than_the_parser_goes_is_not_a_crash() -> None:
    found = summarise("[" * 5000 + "]" * 5000, tool_output=True)
    assert found is None or all(len(c.text) <= 120 for c in found)


def test_a_systemctl_status_gives_the_unit_its_state_and_first_error() -> None:
    status = (
        "× nginx.service - A high performance web server and a reverse proxy server\n"
        "     Loaded: loaded (/lib/systemd/system/nginx.service; enabled; vendor preset: enabled)\n"
        "     Active: failed (Result: exit-code) since Tue 2026-03-10 08:47:13 UTC; 12min ago\n"
        "Mar 10 08:47:13 web-3 nginx[21878]: nginx: [emerg] bind() to 0.0.0.0:80 failed (98: "
        "Address already in use)\n"
    )
    (text,) = _texts(status)
    assert text.startswith("nginx.service is failed (exit-code) since 2026-03-10 08:47:13")
    assert "bind() to 0.0.0.0:80" in text and "high performance" not in text


def test_docker_ps_names_the_container_in_a_rare_state() -> None:
    ps = (
        "CONTAINER ID   IMAGE         COMMAND                  CREATED      STATUS                     NAMES\n"
        'a1b2c3d4e5f6   nginx:1.25    "/docker-entrypoint.…"   6 days ago   Up 6 days                  web\n'
        'b2c3d4e5f6a1   myapp:2.3     "python -m app"          6 days ago   Up 6 days                  api\n'
        'c3d4e5f6a1b2   redis:7.2     "docker-entrypoint.s…"   6 days ago   Exited (137) 3 hours ago   redis\n'
        'd4e5f6a1b2c3   postgres:15   "docker-entrypoint.s…"   6 days ago   Up 6 days                  db\n'
    )
    (text,) = _texts(ps)
    assert "Exited (137)" in text and "redis" in text and "3 Up" in text


def test_a_one_row_sql_result_gives_its_values_and_table() -> None:
    psql = (
        "analytics=> SELECT count(*) AS overdue_90, sum(amount_due) AS total_due\n"
        "analytics->   FROM invoices WHERE paid_at IS NULL;\n"
        " overdue_90 | total_due\n------------+-----------\n         17 |  48213.50\n(1 row)"
    )
    assert _texts(psql) == ["Table of 1 row from invoices: overdue_90 17, total_due 48213.50"]


def test_kubectl_describe_gives_the_status_and_the_last_warning() -> None:
    describe = (
        "Name:             order-svc-5c6d8b7f9-lq2mx\nNamespace:        prod\nStatus:           Pending\n"
        "Events:\n  Type     Reason            Age                 From               Message\n"
        "  ----     ------            ----                ----               -------\n"
        "  Warning  FailedScheduling  2m (x14 over 17m)   default-scheduler  0/6 nodes are "
        "available: 6 Insufficient memory. preemption: 0/6 nodes are available"
    )
    (text,) = _texts(describe)
    assert text.startswith("order-svc-5c6d8b7f9-lq2mx is Pending: FailedScheduling")
    assert "Insufficient memory" in text


def test_an_alert_line_names_the_host_and_the_reading() -> None:
    line = "【P1告警】主机 mysql-prod-01 磁盘使用率 92%，超过阈值 90%，持续 5 分钟 (2026-03-10 08:55:00)"
    said = " ".join(c.text for c in status_lines(line))
    assert "mysql-prod-01" in said and "92%" in said and "【" not in said


def test_a_git_log_gives_the_newest_commit_without_its_author() -> None:
    log = (
        "commit 9f3c2ab71e0d4c8a9b1f2e3d4c5b6a7980f1e2d3\n"
        "Author: Priya Raman <priya@acme.dev>\nDate:   Mon Mar 9 17:42:08 2026 +0000\n\n"
        "    Fix rounding in tax calc for multi-currency carts\n"
    )
    (text,) = _texts(log)
    assert text.startswith("Commit 9f3c2ab: Fix rounding") and "priya" not in text.lower()
