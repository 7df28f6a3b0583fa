"""The rules provider on what the user uses for a purpose (tools, apps, devices, languages) and
on a person's role: a switch or a new role replaces the stored one under whatever words named
it, another tool "also" used is kept beside it, and other uses or other holders are left alone."""

from __future__ import annotations

import pytest

from memory_engine.embedding.usem3 import UseM3Embedder
from memory_engine.llm.rules_roles import role
from memory_engine.llm.rules_usage import usage, use_of
from tests.llm.test_rules_similar import _relations


@pytest.fixture(scope="module")
def embedder() -> UseM3Embedder:
    return UseM3Embedder()


@pytest.mark.parametrize(
    ("clause", "use", "tool", "switched"),
    [
        ("我们组一直用钉钉沟通", "team chat", "钉钉", False),
        ("我们组换成飞书了", "team chat", "飞书", True),
        ("我平时用Chrome浏览器", "browser", "chrome", False),
        ("后端现在改用Go写了", "backend", "go", True),
        ("我现在用Cursor写代码", "editor", "cursor", True),
        ("我用Notion记笔记", "notes", "notion", False),
        ("I use VS Code as my editor", "editor", "vs code", False),
        ("I switched to Cursor last month", "editor", "cursor", True),
        ("We moved our team chat to Microsoft Teams", "team chat", "microsoft teams", True),
        ("I replaced my phone with an iPhone 15", "phone", "iphone 15", True),
        ("Actually I use Firefox now", "browser", "firefox", True),
        ("I've switched to Obsidian for notes", "notes", "obsidian", True),
        # a tool the table does not know, named for its purpose
        ("I use Zotero for citations", "citations", "zotero", False),
    ],
)
def test_a_use_is_read_with_its_tool(clause: str, use: str, tool: str, switched: bool) -> None:
    found = usage(clause)
    assert found is not None and found.kind == "uses"
    assert (found.subject, found.value) == (use, tool)
    assert ("correction" in found.tags) is switched


@pytest.mark.parametrize(
    "clause",
    ["I use chopsticks", "I use it every day", "我用手机拍照", "We use the stairs"],
)
def test_no_use_without_a_known_tool_or_a_purpose(clause: str) -> None:
    found = usage(clause)
    assert found is None or found.subject not in ("editor", "browser", "team chat", "phone")


def test_an_attribute_names_a_use_only_by_a_known_tool_of_that_use() -> None:
    phone = {"kind": "attr", "subject": "phone", "value": "pixel 7"}
    assert use_of(phone) == ("phone", "pixel 7")
    # a phone number, a workplace or an event that names a tool is no use
    assert use_of({"kind": "attr", "subject": "phone", "value": "13800001111"}) is None
    assert use_of({"kind": "workplace", "subject": "workplace", "value": "华为"}) is None
    assert use_of({"kind": "event", "content": "Chrome crashed today"}) is None


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("我们组一直用钉钉沟通", "我们组换成飞书了"),
        ("我平时用Chrome浏览器", "我改用Firefox了"),
        ("我的手机是iPhone", "我换成华为手机了"),
        ("我用Python写后端", "后端现在改用Go写了"),
        ("我平时用VS Code写代码", "我不用VS Code了，现在用Cursor"),
        ("I use VS Code as my editor", "I switched to Cursor last month"),
        ("We use Slack for team chat", "We moved our team chat to Microsoft Teams"),
        ("My phone is a Pixel 7", "I replaced my phone with an iPhone 15"),
        ("I use Chrome as my browser", "Actually I use Firefox now"),
        # a role under another name, or changed
        ("我是产品经理", "我现在转岗做数据分析师了"),
        ("我的职位是高级工程师", "我升职了，现在是技术经理"),
        ("I'm a data analyst", "I changed careers and now work as a nurse"),
        ("My job title is senior engineer", "I got promoted, I'm a staff engineer now"),
        # a contact address to use from now on
        ("我的邮箱是 wang@a.cn", "以后发邮件请用 wang@b.cn"),
        ("My email is sam@old.io", "Please use sam@new.io from now on"),
        # a new value said after the change, the routine's new time
        ("我的车牌号是沪A12345", "我换车了，新车牌是沪B67890"),
        ("我每天早上7点起床", "我现在改成6点半起床了"),
    ],
)
def test_a_switch_or_a_new_role_supersedes(
    embedder: UseM3Embedder, first: str, second: str
) -> None:
    assert "contradicts" in _relations(embedder, first, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # another tool also used for the same purpose
        ("I use Notion for notes", "I also use Obsidian for notes"),
        ("我用Notion记笔记", "我也用Obsidian记笔记"),
        ("我用飞书和同事沟通", "我们组也开始用Slack了"),
        # another use
        ("我用微信和家人联系", "工作上我用钉钉"),
        ("I use VS Code as my editor", "I switched to Firefox"),
        # someone else's tool, a scope, a wish, a plan or a question
        ("I use Chrome as my browser", "My sister switched to Safari"),
        ("我们组用钉钉沟通", "客户那边换成飞书了"),
        ("我的手机是华为", "给我爸换成iPhone了"),
        ("我平时用Chrome浏览器", "公司电脑上换成Edge了"),
        ("我平时用VS Code写代码", "我想换成Cursor"),
        ("我平时用VS Code写代码", "我打算改用Cursor"),
        ("我平时用VS Code写代码", "要不要换成Cursor"),
        # a workplace or a liking that names a tool is no use of it
        ("我在华为工作", "我换成小米手机了"),
        ("I work at Samsung", "I switched to an iPhone"),
        ("I went to the opera last night", "I switched to Firefox"),
        # the purpose said decides over the tool's category
        ("I use Slack for team chat", "We moved the meeting to Teams"),
        ("I use Python for scripts", "I switched to Go for the backend"),
        ("I use a Pixel 7 as my phone", "I replaced my phone case with a Spigen"),
        # a tool mentioned, not switched
        ("I use Chrome as my browser", "Chrome crashed today"),
    ],
)
def test_another_tool_beside_or_for_another_use_is_kept(
    embedder: UseM3Embedder, first: str, second: str
) -> None:
    assert "contradicts" not in _relations(embedder, first, second)


@pytest.mark.parametrize(
    ("clause", "value", "changed"),
    [
        ("我是产品经理", "产品经理", False),
        ("我现在转岗做数据分析师了", "数据分析师", True),
        ("我的职位是高级工程师", "高级工程师", False),
        ("I was promoted to staff engineer", "staff engineer", True),
        ("I work as a teacher at a school", "teacher", False),
        ("my job title is tech lead now", "tech lead", True),
    ],
)
def test_a_role_is_read_as_the_occupation(clause: str, value: str, changed: bool) -> None:
    found = role(clause)
    assert found is not None and (found.kind, found.subject, found.value) == (
        "occupation",
        "occupation",
        value,
    )
    assert ("correction" in found.tags) is changed


@pytest.mark.parametrize(
    "clause", ["I became a father", "我是上海人", "我是素食者", "I work at Google"]
)
def test_not_a_role(clause: str) -> None:
    assert role(clause) is None
