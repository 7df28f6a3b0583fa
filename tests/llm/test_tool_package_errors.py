"""Tool outputs of package managers, CI logs and test runners as a coding agent sees them: an
npm peer conflict, pip's "no matching distribution", a failing test indented in a CI log, jest
and ``go test`` failures, the failing rows of a pod table, an HTTP 429's Retry-After. Each
becomes its conclusion with the names an agent needs, never a slice of the payload."""

from __future__ import annotations

from memory_engine.llm.toolsummary import summarise

NPM = """npm ERR! code ERESOLVE
npm ERR! ERESOLVE unable to resolve dependency tree
npm ERR!
npm ERR! While resolving: shop@1.4.0
npm ERR! Found: vue@3.4.21
npm ERR! node_modules/vue
npm ERR!
npm ERR! Could not resolve dependency:
npm ERR! peer vue@"^2.6.0" from vue-chartjs@3.5.1
npm ERR! node_modules/vue-chartjs
npm ERR!
npm ERR! A complete log of this run can be found in: /root/.npm/_logs/debug-0.log"""

PIP = """Looking in indexes: https://user:s3cr3tPassw0rd@mirror.example.org/simple
Collecting numpy==1.19.5
ERROR: Could not find a version that satisfies the requirement numpy==1.19.5 (from versions: 1.26.4, 2.0.0, 2.1.3)
ERROR: No matching distribution found for numpy==1.19.5"""

PIP_NONE = """ERROR: Could not find a version that satisfies the requirement internal-sdk (from versions: none)
ERROR: No matching distribution found for internal-sdk"""

CI_LOG = """test  Install deps        ✓
test  Run tests           X
  ##[group]Run pytest -q
  ....F....
  FAILED tests/test_orders.py::test_refund_total - AssertionError: assert 90 == 100
  1 failed, 57 passed in 4.20s
  ##[error]Process completed with exit code 1."""

JEST = """ PASS  src/api/client.test.ts
 FAIL  src/pages/Checkout.test.tsx
  ● Checkout › applies the voucher

Tests:       1 failed, 40 passed, 41 total
Time:        5.1 s"""

GO = """=== RUN   TestParse
--- PASS: TestParse (0.00s)
=== RUN   TestRetryBudget
    retry_test.go:21: budget exhausted after 2 tries, want 3
--- FAIL: TestRetryBudget (0.05s)
FAIL
FAIL	github.com/acme/platform/internal/retrylimiter	0.301s
ok  	github.com/acme/platform/internal/queue	0.112s
FAIL"""

PODS = """NAME                           READY   STATUS             RESTARTS      AGE
web-6d8f9c7b5-aaaaa            1/1     Running            0             2d
web-6d8f9c7b5-bbbbb            1/1     Running            0             2d
payments-5b7c9d8e6-ccccc       0/1     CrashLoopBackOff   9 (1m ago)    30m
worker-0                       0/1     ImagePullBackOff   0             30m"""

RATE_LIMITED = """HTTP/1.1 429 Too Many Requests
Content-Type: application/json
Retry-After: 90

{"error": "rate_limited", "message": "quota exceeded for key sk_live_abcdef123456"}"""


def _texts(text: str) -> list[str]:
    return [c.text for c in summarise(text, tool_output=True) or []]


def _no_payload_slice(text: str, conclusions: list[str]) -> None:
    for said in conclusions:
        for i in range(0, max(1, len(text) - 40)):
            assert text[i : i + 40] not in said, said


def test_an_npm_peer_conflict_names_the_package_the_peer_and_what_was_found() -> None:
    said = _texts(NPM)
    assert said == [
        "npm install failed with ERESOLVE: vue-chartjs@3.5.1 needs peer vue@^2.6.0, "
        "found vue@3.4.21"
    ]


def test_pip_no_matching_distribution_names_the_requirement_and_the_versions() -> None:
    said = _texts(PIP)
    assert said == [
        "pip install failed: no matching distribution for numpy==1.19.5 (available 1.26.4 to 2.1.3)"
    ]
    assert not any("s3cr3t" in s for s in said)
    assert _texts(PIP_NONE) == [
        "pip install failed: no matching distribution for internal-sdk (no version available)"
    ]


def test_an_indented_failing_test_in_a_ci_log_is_named() -> None:
    said = _texts(CI_LOG)
    assert len(said) == 1 and "1 failed, 57 passed" in said[0]
    assert "test_refund_total failed" in said[0]


def test_jest_and_go_failures_name_the_failing_file_and_test_not_the_package_path() -> None:
    jest = _texts(JEST)
    assert len(jest) == 1 and "Checkout.test.tsx failed" in jest[0], jest
    go = _texts(GO)
    assert go == ["TestRetryBudget failed"], go
    _no_payload_slice(GO, go)


def test_a_pod_table_names_the_rows_in_a_failing_state() -> None:
    said = _texts(PODS)
    assert len(said) == 1
    assert "payments-5b7c9d8e6-ccccc" in said[0] and "worker-0" in said[0]
    assert "web-6d8f9c7b5-aaaaa" not in said[0]


def test_a_rate_limited_response_says_when_to_retry_and_never_the_key() -> None:
    said = _texts(RATE_LIMITED)
    assert len(said) == 1 and said[0].startswith("HTTP response 429 Too Many Requests")
    assert "retry after 90 s" in said[0]
    assert "sk_live" not in said[0]


def test_a_login_or_a_token_in_a_package_error_is_never_quoted() -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9"
    npm = (
        "npm ERR! code ERESOLVE\nnpm ERR! Found: react@https://deploy:hunter2pass@reg.example.com/r.tgz"
        f'\nnpm ERR! peer react@"^17" from git+https://{token}@github.com/acme/ui.git\n'
    )
    pip = f"ERROR: No matching distribution found for mypkg+{token}\n"
    git = "error: could not read from https://bob:pw123@git.example.com/x.git"
    for text in (npm, pip, git):
        said = " ".join(_texts(text))
        assert said and token not in said and "hunter2" not in said and "pw123" not in said, said


def test_a_package_error_quoted_in_chat_is_no_tool_conclusion() -> None:
    chat = "I keep getting 'No matching distribution found for torch' - should I downgrade?"
    assert summarise(chat, tool_output=False) is None


def test_retry_after_only_for_a_rate_limit_or_an_outage() -> None:
    moved = "HTTP/1.1 301 Moved Permanently\nLocation: /new\nRetry-After: 5\n\n"
    assert not any("retry after" in t for t in _texts(moved))
