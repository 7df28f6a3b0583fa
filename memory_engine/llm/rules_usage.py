"""What the user (or their team) uses for a purpose, for the ``rules`` extractor and judge:
"我们组用钉钉沟通", "我用Python写后端", "I use VS Code as my editor", and the switches that
replace it: "我们组换成飞书了", "后端现在改用Go写了", "I switched to Cursor",
"We moved our team chat to Microsoft Teams", "I replaced my phone with an iPhone 15",
"Actually I use Firefox now".

Each is a ``uses`` ``Match``: subject the **use** (a category of tool such as ``editor`` or
``team chat`` when the tool or the purpose names one, else the purpose as said), value the tool
(lower case). A switch carries the ``correction`` tag. Two facts of one holder about the same use
relate as one attribute (``use_relation``): the same tool is a duplicate, a switch to another
tool contradicts the stored one, another tool without a switch word ("我也用Obsidian") is kept
beside it. A stored fact of any kind counts as a use when it names a known tool ("The user's
phone is a Pixel 7" is the use ``phone``).

The tool table is a small lexicon of common software, devices and languages; a tool it does not
know still forms a ``uses`` fact when it is written as a name (Latin letters), with its purpose
as the use.
"""

from __future__ import annotations

import re
from typing import Any

from memory_engine.llm.rules_patterns import Match

__all__ = ["use_of", "use_relation", "usage"]

#: Tools by use (lower case; Chinese and English names).
_TOOLS: dict[str, tuple[str, ...]] = {
    "editor": (
        "vs code",
        "vscode",
        "visual studio code",
        "cursor",
        "vim",
        "neovim",
        "nvim",
        "emacs",
        "sublime",
        "sublime text",
        "intellij",
        "intellij idea",
        "pycharm",
        "webstorm",
        "goland",
        "zed",
        "xcode",
        "android studio",
        "eclipse",
        "windsurf",
        "notepad++",
    ),
    "browser": (
        "chrome",
        "google chrome",
        "firefox",
        "safari",
        "edge",
        "microsoft edge",
        "arc",
        "brave",
        "opera",
        "vivaldi",
        "chromium",
    ),
    "messaging": (
        "微信",
        "wechat",
        "whatsapp",
        "telegram",
        "signal",
        "qq",
        "imessage",
        "line",
        "短信",
    ),
    "team chat": (
        "slack",
        "microsoft teams",
        "teams",
        "discord",
        "钉钉",
        "飞书",
        "企业微信",
        "lark",
        "dingtalk",
        "mattermost",
        "rocket.chat",
        "zulip",
        "welink",
    ),
    "phone": (
        "iphone",
        "pixel",
        "华为",
        "huawei",
        "小米",
        "xiaomi",
        "oppo",
        "vivo",
        "samsung",
        "galaxy",
        "荣耀",
        "honor",
        "oneplus",
        "一加",
        "魅族",
    ),
    "notes": (
        "notion",
        "obsidian",
        "evernote",
        "印象笔记",
        "onenote",
        "logseq",
        "bear",
        "语雀",
        "roam",
        "apple notes",
        "有道云笔记",
    ),
    "language": (
        "python",
        "go",
        "golang",
        "java",
        "rust",
        "typescript",
        "javascript",
        "kotlin",
        "swift",
        "ruby",
        "php",
        "c++",
        "c#",
        "scala",
        "elixir",
        "node.js",
        "nodejs",
    ),
    "email": ("gmail", "outlook", "qq邮箱", "163邮箱", "网易邮箱", "proton mail", "protonmail"),
    "tracker": (
        "jira",
        "linear",
        "trello",
        "asana",
        "禅道",
        "tapd",
        "github issues",
        "youtrack",
        "todoist",
        "ticktick",
        "滴答清单",
        "things",
    ),
    "docs": ("confluence", "notion docs", "google docs", "飞书文档", "语雀文档", "coda"),
    "database": (
        "mysql",
        "postgres",
        "postgresql",
        "sqlite",
        "mongodb",
        "oracle",
        "sql server",
        "redis",
        "cassandra",
        "dynamodb",
        "tidb",
        "oceanbase",
    ),
    "os": ("windows", "macos", "mac os", "linux", "ubuntu", "debian", "fedora", "arch linux"),
    "music": ("spotify", "apple music", "网易云音乐", "qq音乐", "youtube music"),
    "maps": ("高德地图", "高德", "百度地图", "google maps", "apple maps", "waze"),
    "car": (
        "honda",
        "toyota",
        "tesla",
        "bmw",
        "audi",
        "ford",
        "volkswagen",
        "vw",
        "nissan",
        "mazda",
        "subaru",
        "kia",
        "hyundai",
        "mercedes",
        "volvo",
        "porsche",
        "rivian",
        "byd",
        "比亚迪",
        "特斯拉",
        "蔚来",
        "理想",
        "小鹏",
        "大众",
        "丰田",
        "本田",
        "宝马",
        "奔驰",
        "奥迪",
        "吉利",
        "问界",
    ),
    "laptop": (
        "macbook",
        "macbook pro",
        "macbook air",
        "thinkpad",
        "dell",
        "dell xps",
        "xps",
        "surface",
        "matebook",
        "lenovo",
        "联想",
        "拯救者",
        "戴尔",
        "惠普",
        "hp",
        "asus",
        "华硕",
        "framework",
    ),
}
_USE_OF_TOOL = {tool: use for use, tools in _TOOLS.items() for tool in tools}
#: Purpose words by use ("记笔记", "as my browser", "for team chat").
_PURPOSES: dict[str, tuple[str, ...]] = {
    "editor": ("editor", "ide", "编辑器", "写代码", "code editor", "coding"),
    "browser": ("browser", "浏览器", "web browser", "上网"),
    "messaging": ("联系", "messages", "texting", "聊天联系", "messaging"),
    "team chat": ("team chat", "chat", "沟通", "聊天", "开会沟通", "办公沟通"),
    "phone": ("phone", "手机", "smartphone", "mobile"),
    "notes": ("notes", "note-taking", "笔记", "记笔记", "做笔记", "记东西"),
    "backend": ("backend", "后端", "服务端", "the backend", "server side"),
    "frontend": ("frontend", "前端", "the frontend"),
    "scripts": ("scripts", "脚本", "scripting"),
    "email": ("email", "邮件", "收发邮件", "mail"),
    "tracker": (
        "tickets",
        "issue tracking",
        "任务管理",
        "项目管理",
        "bug跟踪",
        "bugs",
        "issues",
        "tasks",
        "待办",
        "待办事项",
        "任务",
    ),
    "docs": ("docs", "documents", "documentation", "wiki", "文档", "知识库"),
    "database": ("database", "main database", "db", "数据库", "主库"),
    "os": ("operating system", "操作系统"),
    "maps": ("navigation", "导航", "地图"),
    "car": ("car", "车", "汽车", "ride"),
    "laptop": (
        "laptop",
        "work laptop",
        "电脑",
        "工作电脑",
        "笔记本电脑",
        "work computer",
        "computer",
        "machine",
        "work machine",
    ),
}
_USE_OF_PURPOSE = {p: use for use, ps in _PURPOSES.items() for p in ps}

#: A tool written as a name: Latin letters, digits and + # . (a product, a language).
_NAME = r"[A-Za-z][A-Za-z0-9_+#.]*(?-i: [A-Z0-9][A-Za-z0-9_+#.]*){0,2}"
_ZH_TOOL = "|".join(
    sorted((re.escape(t) for t in _USE_OF_TOOL if re.search(r"[\u4e00-\u9fff]", t)), key=len)[::-1]
)
_TOOL = rf"(?:{_ZH_TOOL}|{_NAME})"
_WHO_ZH = r"(?:我们组|我们团队|我们公司|我们|咱们|我|用户)"
_ZH_WHEN = r"(?:平时|一直|现在|主要|都|一般|目前|日常|也|还|开始|已经|经常|如今|全|全部|统一)"

_ZH_USE_RE = re.compile(
    rf"^(?:(?P<who>{_WHO_ZH}){_ZH_WHEN}*|(?P<ctx>工作上|生活上|平时)我?{_ZH_WHEN}*)"
    rf"用(?:的是)?\s*(?P<tool>{_TOOL})\s*(?:来|做|和|跟)?(?P<purpose>[\u4e00-\u9fff]{{0,8}}?)(?:了)?$"
)
_ZH_SWITCH_RE = re.compile(
    rf"^(?:(?:{_WHO_ZH})的?)?(?P<purpose>[\u4e00-\u9fff]{{0,6}}?){_ZH_WHEN}*"
    rf"(?:改用|换成|换用|换到|转用|切换到|切到|迁移到|迁到|改成用|改成放|挪到|搬到|放到|改放)(?:了)?\s*"
    rf"(?P<tool>{_TOOL})\s*(?:上|里)?(?:来|去)?(?P<after>[\u4e00-\u9fff]{{0,6}}?)(?:了|啦)?$"
)
#: A Chinese use said topic first: "日常写代码用的是VS Code", "待办事项一直用Todoist管理",
#: "团队的文档都放在Confluence上".
_ZH_TOPIC_USE_RE = re.compile(
    rf"^(?P<purpose>(?!我|你|他|她|用户)[\u4e00-\u9fff]{{2,8}}?){_ZH_WHEN}*"
    rf"(?:用的是|用的|用|放在|存在|放)\s*(?P<tool>{_TOOL})\s*(?:上|里)?"
    rf"(?P<after>[\u4e00-\u9fff]{{0,4}}?)(?:了)?$"
)
#: Words of a scope or of someone else before a switch ("公司电脑上换成Edge了", "客户那边…").
_ZH_SCOPE_RE = re.compile(r"[上里边]$|那|客户|隔壁|别的|其他|他们|有些|同事|老板|朋友|家人")
#: A Chinese switch that is only a wish, a plan, a question, denied, or someone else's
#: ("我想换成Cursor", "要不要换成Cursor", "没有换成", "老板让我们换成", "给我爸换成").
_ZH_NOT_DONE_RE = re.compile(r"想|打算|准备|计划|考虑|要不要|是否|不|没|别|让|叫|给|帮|替|[?？吗]")
_ZH_NOW_RE = re.compile(r"现在|如今|目前|已经")
_EN_USE_RE = re.compile(
    rf"^(?:(?:actually|now|these days|mostly),? )?(?:I|we|the user|the team|our team)"
    rf"(?: mostly| mainly| now| still| also| usually| actually)*(?P<verb> use| uses| prefer| code in|"
    rf" write in| drive| drives| got issued| got| bought| was issued|'m on| am on|'re on| are on)"
    rf" (?:an? |the )?(?P<tool>{_NAME})(?: (?:as (?:my|our|the user's|a|the) (?P<new>new )?|"
    rf"for (?:my |our )?|to )"
    rf"(?P<purpose>[a-z][\w -]{{1,30}}?))?(?: now| these days| instead| too| as well)?(?:\s*[,;].*)?$",
    re.I,
)
#: "We track bugs in Jira", "we keep our docs in Confluence", "we host the site on Vercel".
_EN_KEEP_RE = re.compile(
    rf"^(?:I|we|the user|the team|our team)(?: mostly| mainly| still| now| all)? "
    rf"(?:track|manage|keep|store|host|run|write|plan) (?:all |our |my |the )?"
    rf"(?P<purpose>[a-z][\w -]{{1,20}}?) (?:in|on|with) (?:an? |the )?(?P<tool>{_NAME})"
    rf"(?: now| these days)?$",
    re.I,
)
_EN_SWITCH_RE = re.compile(
    rf"^(?:(?:so|and|actually|then),? )?(?:I|we|the user|the team|our team)(?:'ve| have| has)?"
    rf"(?: just| recently| finally)? (?:switched|moved|migrated|changed|replaced|swapped)"
    rf"(?: (?:my|our|the user's|the team's|the) (?P<purpose>[a-z][\w -]{{1,25}}?)|"
    rf" everything| it all| all of it| over)?"
    rf"(?: over)?(?: from {_NAME})? (?:to|with|for) (?:an? |the )?(?P<tool>{_NAME})"
    rf"(?: (?:for|as) (?:my |our |the )?(?P<purpose2>[a-z][\w -]{{1,25}}?))?"
    rf"(?: (?:last|this) (?:week|month|year)| in \w+| recently| now| instead)*(?:\s*[,;].*)?$",
    re.I,
)
_EN_SWITCH_WORD_RE = re.compile(r"\b(?:instead|actually|now)\b", re.I)
#: Words that are no tool ("I use it", "we use the stairs").
_NOT_TOOL = frozenset("it this that them these those a an the my our his her their".split())


def _canonical_tool(tool: str) -> str:
    text = re.sub(r"\s+", " ", tool.strip().lower())
    return re.sub(r"(?<=[\u4e00-\u9fff])手机$", "", text) or text


def _tool_use(tool: str) -> str | None:
    """The use a known tool is for ("cursor" -> "editor"; "iphone 15" -> "phone"), or None."""
    name = _canonical_tool(tool)
    return _USE_OF_TOOL.get(name) or _USE_OF_TOOL.get(name.split(" ")[0])


#: Where or how widely a tool is used, which names no use of its own.
_SCOPES = frozenset(
    {
        "work",
        "everything",
        "home",
        "school",
        "personal use",
        "daily use",
        "工作",
        "team",
        "whole team",
        "entire team",
        "everyone",
        "company",
        "whole company",
    }
)


def _purpose_use(purpose: str) -> str:
    """The use a purpose names: its category when the table knows it ("记笔记" -> "notes",
    "和同事沟通" -> "team chat" by its last word, "写后端" -> "backend"), else the purpose as
    said; "" for none."""
    said = re.sub(
        r"^(?:my|our|the user's|the)\s+|^[\u4e00-\u9fff]{1,4}的", "", purpose.strip().lower()
    )
    said = re.sub(r"^(?:日常|平时|工作上|一直)", "", said)
    if said in _SCOPES:
        return ""  # "for work", "for everything": where it is used, not what for
    bare = re.sub(r"[写来做去]$", "", re.sub(r"^(?:写|做|来|用来)", "", said))
    for text in (said, bare):
        if text in _USE_OF_PURPOSE:
            return _USE_OF_PURPOSE[text]
    if re.search(r"[\u4e00-\u9fff]", bare):
        for word, use in _USE_OF_PURPOSE.items():
            if len(word) >= 2 and bare.endswith(word):
                return use
    return bare


def _use(tool: str, purpose: str) -> str | None:
    """The use of ``tool`` said for ``purpose``: a purpose said decides (its category when the
    table knows it, else the purpose as said: "for the client project" is no team chat);
    without one, the tool's category; None when neither is known (no use to key)."""
    return _purpose_use(purpose) or _tool_use(tool)


def usage(clause: str) -> Match | None:
    """The ``uses`` ``Match`` of one clause (see the module docstring), or None."""
    text = clause.strip().rstrip("。.!！")
    zh = re.search(r"[\u4e00-\u9fff]", text) is not None
    m = (_ZH_SWITCH_RE if zh else _EN_SWITCH_RE).match(text)
    if m:
        switched = True
        groups = m.groupdict()
        purpose = groups.get("purpose") or groups.get("purpose2") or groups.get("after") or ""
        if zh and (_ZH_NOT_DONE_RE.search(text[: m.start("tool")]) or "吗" in text):
            return None
        if zh and purpose and _ZH_SCOPE_RE.search(purpose):
            return None  # "公司电脑上换成Edge了", "客户那边换成飞书了": a scope or holder
    else:
        m = (_ZH_USE_RE if zh else _EN_USE_RE).match(text)
        if m is None and not zh:
            m = _EN_KEEP_RE.match(text)
        if m is None and zh:
            m = _ZH_TOPIC_USE_RE.match(text)
            if m is not None and _ZH_SCOPE_RE.search(m.group("purpose")):
                m = None
        if not m:
            return None
        groups = m.groupdict()
        purpose = groups.get("purpose") or ""
        verb = (groups.get("verb") or "use").strip(" '").lower()
        if verb in ("got", "bought", "got issued", "was issued") and not purpose:
            return None  # "I got a Tesla" is no use said; "… as my new work laptop" is
        if verb.startswith("drive") and not purpose:
            purpose = "car"
        said_now = (_ZH_NOW_RE if zh else _EN_SWITCH_WORD_RE).search(text)
        switched = (bool(said_now) and not (zh and groups.get("ctx"))) or bool(groups.get("new"))
    tool = m.group("tool")
    if tool.lower() in _NOT_TOOL:
        return None
    use = _use(tool, purpose)
    if use is None:
        return None
    return Match(
        kind="uses",
        subject=use,
        value=_canonical_tool(tool),
        importance=0.6,
        tags=("tool", "preference") + (("correction",) if switched else ()),
    )


def use_of(key: dict[str, Any]) -> tuple[str, str] | None:
    """(use, tool) a fact key is about: its own for a ``uses`` key; for an attribute whose value
    is a known tool of the use its name says ("The user's phone is a Pixel 7" -> ("phone",
    "pixel 7")); else None (a workplace, an event or a liking that names a tool is no use)."""
    if key.get("kind") == "uses" and key.get("subject"):
        return str(key["subject"]), str(key.get("value") or "")
    if key.get("kind") in ("statement", "preference") and int(key.get("polarity", 1)) < 0:
        # "Todoist我不再用了", "I don't use Slack anymore": a known tool no longer used
        tool = re.sub(r"^(?:用|使用|use|using)\s*", "", str(key.get("subject") or "").lower())
        use = _tool_use(tool)
        return (use, _canonical_tool(tool)) if use else None
    if key.get("kind") != "attr":
        return None
    value = str(key.get("value") or "")
    subject = re.sub(r"^(?:my|the user's|the)\s+", "", str(key.get("subject") or "").lower())
    use = _tool_use(value)
    if use is None or _USE_OF_PURPOSE.get(subject) != use:
        return None
    return use, _canonical_tool(value)


def _same_tool(a: str, b: str) -> bool:
    """One tool: equal names, or one the other's model ("iphone" / "iphone 15")."""
    return a == b or a.startswith(b + " ") or b.startswith(a + " ")


_ADDS_RE = re.compile(r"\b(?:too|also|as well)\b|也|还(?:在)?用", re.I)


def use_relation(new: dict[str, Any], old: dict[str, Any]) -> tuple[str, str] | None:
    """How a ``uses`` fact relates to a stored fact about a use (either may be the ``uses``
    key), or None when they are not about one use. Same holder is checked by the caller."""
    if "uses" not in (new.get("kind"), old.get("kind")):
        return None
    a, b = use_of(new), use_of(old)
    if a is None or b is None or a[0] != b[0]:
        return None
    same_polarity = int(new.get("polarity", 1)) == int(old.get("polarity", 1))
    if new.get("temporary") and not old.get("temporary"):
        return "supplements", "temporary state next to a lasting fact"
    if _same_tool(a[1], b[1]):
        if same_polarity:
            return "duplicate", "same tool for the same use"
        return "contradicts", "the tool for this use denied"
    if (
        new.get("correction")
        and int(new.get("polarity", 1)) > 0
        and not _ADDS_RE.search(str(new.get("content") or ""))
    ):
        return "contradicts", "switched to another tool for the same use"
    return "supplements", "another tool for the same use, both kept"
