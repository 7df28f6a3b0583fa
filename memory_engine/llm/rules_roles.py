"""A person's role or job, and its changes, for the ``rules`` extractor: "我是产品经理",
"我的职位是高级工程师", "我现在转岗做数据分析师了", "我升职了，现在是技术经理",
"My job title is senior engineer", "I changed careers and now work as a nurse",
"I was promoted to staff engineer".

Each is an ``occupation`` ``Match`` (subject ``occupation``, value the role in lower case), so a
new role replaces the stored one whatever words named it (``rules_judge``: single-valued). A
change of role ("转岗", "升职", "now work as", "promoted to") carries the ``correction`` tag.
"""

from __future__ import annotations

import re

from memory_engine.llm.rules_patterns import Match

__all__ = ["ROLE_ATTRIBUTES", "role"]

#: Attribute names that mean the role ("职位", "job title"): the attribute is the occupation.
ROLE_ATTRIBUTES = ("职位", "职务", "职称", "头衔", "job title", "occupation", "profession")
#: The Chinese ones, for the "我的职位是…" reading.
_ZH_ROLE_ATTRIBUTES = "|".join(w for w in ROLE_ATTRIBUTES if re.search(r"[\u4e00-\u9fff]", w))

#: How a Chinese role name ends (经理, 工程师, 分析师, 医生, 老师, …).
_ZH_ROLE = (
    r"(?:(?![的他她们])[\u4e00-\u9fffA-Za-z]){0,8}?(?:经理|工程师|分析师|设计师|架构师|程序员|研究员|专员|"
    r"主管|总监|总裁|顾问|医生|护士|老师|教师|律师|会计|记者|编辑|运营专员|销售|翻译|厨师|司机|警察|"
    r"科学家|实习生|研究生|博士生|博士后|讲师|教授|店长|组长|负责人|合伙人|创始人|CTO|CEO|CFO|COO|"
    r"(?<=[端据件务试维品])(?:开发|测试|运维)|产品设计|视觉设计|交互设计|UI设计)"
)
_ZH_CHANGE = r"(?:转岗|转行|改行|跳槽|换岗|调岗|升职|晋升|提拔)"
#: Time and aspect words before a change ("上个月已经转岗做产品经理了").
_ZH_WHEN = r"(?:现在|目前|已经|上个?月|去年|今年|最近|前阵子|上周|刚刚?)"
_ZH_ROLE_RE = re.compile(
    rf"^(?:(?P<me>我|用户)(?:现在|目前|已经)?(?:是|当上了?|成为了?|成了|担任)(?:一名|一个|一位|个|名)?"
    rf"|(?:我|用户)?{_ZH_WHEN}*{_ZH_CHANGE}(?:了)?(?:成|为|到|做|当|去做|成为)(?:了)?(?:一名|一个)?"
    rf"|(?:我|用户)(?:现在|目前)?在(?:一家|一个|家)[^，,。做当]{{1,12}}(?:做|当)(?:一名|一个)?"
    rf"|(?:现在|目前)(?:是|做|当)(?:一名|一个)?"
    rf"|(?:我|用户)的(?:{_ZH_ROLE_ATTRIBUTES})(?:是|为|变成了?|改成了?|改为)"
    rf"|(?:我|用户)?(?:被)?(?:升|提拔)(?:为|成|到))"
    rf"(?P<role>{_ZH_ROLE})(?:了|啦)?$"
)
_EN_ROLE_WORDS = "|".join(w for w in ROLE_ATTRIBUTES if re.match("[a-z]", w))
_EN_ROLE_RE = re.compile(
    r"^(?:(?:I|the user) (?:(?!my\b|his\b|her\b|their\b|also\b)[a-z']+ ){1,4}and |(?:I|the user) )"
    r"(?:(?:now|currently) )?"
    r"(?:(?:work|works) as |(?:was |got |have been |'ve been |been )?promoted to |"
    r"(?:switched|moved|transitioned|changed) (?:in)?to (?=(?:an? |the )?[a-z][\w -]{1,30}? "
    r"(?:role|position|job)\b))"
    r"(?:an? |the )?(?P<role>[a-z][\w -]{1,30}?)(?: (?:role|position|job))?"
    r"(?: now)?(?: (?:at|in|for|with|since|last|this) [^,;]{1,40})?$|"
    rf"^(?:my|the user's) (?:current |new )?(?:{_EN_ROLE_WORDS}) (?:is|is now|changed to)"
    r" (?:an? |the )?(?P<role2>[a-z][\w -]{1,30}?)(?: now)?$",
    re.I,
)
#: A role only wished, planned, past or denied ("I want to work as", "I used to work as").
_EN_NOT_ROLE_RE = re.compile(
    r"\b(?:want|wants|wanted|would|'d|hope|hoping|wish|plan|planning|used to|don't|do not|"
    r"doesn't|never|not|someday|one day|might|may|could|should|if)\b",
    re.I,
)

#: Words that say the role changed.
_CHANGE_RE = re.compile(
    rf"{_ZH_CHANGE}|升为|升成|升到|现在|\b(?:now|promoted|became|changed|new)\b", re.I
)


def role(clause: str) -> Match | None:
    """The ``occupation`` ``Match`` of one clause (see the module docstring), or None."""
    text = clause.strip().rstrip("。.!！")
    if re.search(r"[\u4e00-\u9fff]", text):
        m = _ZH_ROLE_RE.match(text)
        value = m.group("role") if m else None
    else:
        m = None if _EN_NOT_ROLE_RE.search(text) else _EN_ROLE_RE.match(text)
        value = (m.group("role") or m.group("role2")) if m else None
    if not value:
        return None
    changed = bool(_CHANGE_RE.search(text))
    return Match(
        "occupation",
        "occupation",
        value=value.strip().lower(),
        importance=0.7,
        tags=("identity",) + (("correction",) if changed else ()),
    )
