"""Attribute values said in ways the pattern table does not read, for the ``rules`` extractor:
a contact address to use from now on ("以后发邮件请用 X", "email me at X from now on"), a new
value said without its holder ("新车牌是沪B67890", "新工位在5楼", "New number: 415-555-0199"),
a number given without a verb ("手机号13812345678"), who leads the user's team
("现在带我们的是陈静") and an allergy named as a noun ("shellfish allergy here").

Each is an ``attr`` (or ``allergy``) ``Match``; a new value carries the ``correction`` tag, so
it replaces the stored value of the same attribute (``rules_judge``; a value of another shape,
a number against a name, never does).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memory_engine.llm.rules_patterns import Match

__all__ = ["attribute_value"]

_EMAIL = r"([\w.+-]+@[\w-]+(?:\.[\w-]+)+)"
#: Attribute nouns a Chinese "新X…" names (not "新的一年", "新来的实习生").
_ZH_NEW_ATTR = (
    r"(工位|座位|办公室|地址|住址|号码|手机号|电话|号|邮箱|车牌号?|工号|微信号?|账号|门牌号?)"
)
_NUMBER = r"(\+?[\d][\d\s-]{4,20}\d)"

_READERS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], Match]]] = [
    (
        re.compile(
            rf"(?:发邮件|邮件|联系我|找我)(?:请|就|都|麻烦)?(?:用|发到|发送到|发至|改发到)\s*{_EMAIL}"
        ),
        lambda m: Match("attr", "邮箱", value=m.group(1).lower(), tags=("personal", "correction")),
    ),
    (
        re.compile(
            rf"\b(?:e-?mail me at|reach me at|contact me at|use|send (?:e-?mails?|mail) to) {_EMAIL}"
            r"(?: (?:from now on|instead|going forward|for (?:e-?mails?|work e-?mail|mail)))*$",
            re.I,
        ),
        lambda m: Match("attr", "email", value=m.group(1).lower(), tags=("personal", "correction")),
    ),
    # "新车牌是沪B67890", "新工位在5楼", "新号是139…"
    (
        re.compile(
            rf"^(?:我的|用户的)?新的?{_ZH_NEW_ATTR}(?:是|为|在)"
            r"(?!.*(?:谁|哪|什么|多少|几|吗|呢|路上|充电|修))((?:[^，,。.!！;；?？]|\.(?=\S)){1,20})$"
        ),
        lambda m: Match(
            "attr",
            m.group(1).strip(),
            value=m.group(2).strip().lower(),
            tags=("personal", "correction"),
        ),
    ),
    # "New number: 415-555-0199", "new email - a@b.io"
    (
        re.compile(
            r"^(?:my )?new (number|phone number|phone|cell|mobile|email|e-mail|address)"
            r"(?: is|:| -)\s*([^,;]{3,40}?)(?:[,;].*)?$",
            re.I,
        ),
        lambda m: Match(
            "attr",
            m.group(1).lower(),
            value=m.group(2).strip().lower(),
            tags=("personal", "correction"),
        ),
    ),
    # "手机号13812345678", "我电话 138…": a number with no verb
    (
        re.compile(
            rf"^(?:我的?|用户的?)?(手机号码?|电话号码?|电话|号码|微信号?|工号|qq号?){_NUMBER}$",
            re.I,
        ),
        lambda m: Match("attr", m.group(1).lower(), value=re.sub(r"[\s-]", "", m.group(2))),
    ),
    (
        re.compile(r"^(?:现在)?带(?:我们|我)的(?:人)?(?:是|换成了?)([\u4e00-\u9fff]{2,4})$"),
        lambda m: Match("attr", "领导", value=m.group(1), tags=("work", "correction")),
    ),
    # a transfer to another city or office ("上个月调去深圳了", "被外派到新加坡")
    (
        re.compile(
            r"^(?:我|用户)?(?:上个?月|去年|今年|最近|已经|刚刚?|前阵子)*(?:被)?"
            r"(?:调去|调到|外派到|外派去|派驻到|调职到)"
            r"([\u4e00-\u9fff]{2,6}?)(?:分公司|办公室|总部)?(?:了|工作|上班|办公)*$"
        ),
        lambda m: Match(
            "workplace",
            "workplace",
            value=m.group(1),
            importance=0.7,
            tags=("place", "work", "correction"),
        ),
    ),
    # "shellfish allergy here", "花生过敏体质"
    (
        re.compile(
            r"^(?:(?:just )?a reminder,? )?([a-z][a-z -]{2,20}?) allergy(?: here| btw)?$", re.I
        ),
        lambda m: Match("allergy", m.group(1).strip().lower(), importance=0.9, tags=("health",)),
    ),
]


def attribute_value(clause: str) -> Match | None:
    """The first reading of ``clause`` above (see the module docstring), or None."""
    text = clause.strip().rstrip("。.!！")
    for pattern, read in _READERS:
        m = pattern.search(text)
        if m:
            return read(m)
    return None
