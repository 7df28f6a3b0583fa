"""Value slots of a fact subject for the ``rules`` judge: the parts of a subject that hold a
value of one attribute (a count, a time of day or weekday, a clock time), attribute names that
mean one attribute (电话 / 号码 / phone number), and diets that rule out what a fact says is eaten.

Two facts about one activity or object that differ only in such a slot say two values of one
attribute ("我每天早上跑步" / "我每天晚上跑步", "I run every morning" / "I run every evening",
"两只猫" / "三只猫"): the later one replaces the earlier, unless it says it adds ("too", 也).
A different object ("gym shoes" next to "the gym") is never a slot change.

Subjects here are already normalised by ``rules_judge._subject`` (lower case, English words
stemmed: "mondays" -> "monday", "evening" -> "even").
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "MEAT_FREE_DIETS",
    "canonical_attribute",
    "diet_conflict",
    "means_change",
    "strip_count",
    "time_slot_change",
]

#: Times of day, weekdays and clock times (Chinese; English plain or stemmed: "morn", "even").
_TIME_SLOT_RE = re.compile(
    r"(?:每天|每周|每个?星期|每个?礼拜)?(?:早上|早晨|清晨|上午|中午|下午|傍晚|晚上|夜里|夜间|半夜|凌晨|白天)|"
    r"(?:每)?(?:周|星期|礼拜)[一二三四五六日天末]|"
    r"\d{1,2}(?:[:：]\d{2})?\s*(?:点半|点钟|点|am|pm)|"
    r"\b(?:(?:every|each|in the|on the|on|at|in)\s+)?(?:morning|morn|afternoon|evening|even|night|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend)s?\b|"
    r"\bat \d{1,2}(?::\d{2})?\b",
    re.I,
)
_SLOT_WORD = {"morn": "morning", "even": "evening"}


def _slot_parts(subject: str) -> tuple[str, tuple[str, ...]]:
    """(subject without its time slots, the normalised slot words in order)."""
    slots = []
    for m in _TIME_SLOT_RE.finditer(subject):
        word = re.sub(
            r"^(?:every|each|in the|on the|on|at|in)\s+|^每天?|s$", "", m.group(0).strip()
        )
        slots.append(_SLOT_WORD.get(word, word))
    rest = re.sub(r"\s+", " ", _TIME_SLOT_RE.sub(" ", subject)).strip(" ,，")
    return rest, tuple(slots)


def time_slot_change(a: str, b: str) -> bool:
    """True when subjects ``a`` and ``b`` name one activity at two different times ("每天早上跑步"
    / "每天晚上跑步", "run every morn" / "run every even"): the same words once the time slots
    are taken out, a slot on both sides, and different slots."""
    rest_a, slots_a = _slot_parts(a)
    rest_b, slots_b = _slot_parts(b)
    if not rest_a or rest_a != rest_b or not slots_a or not slots_b:
        return False
    return slots_a != slots_b


#: How one gets somewhere (Chinese; English plain or stemmed: "driv", "tak the train").
_MEANS_RE = re.compile(
    r"开车|自驾|坐地铁|乘地铁|坐公交|乘公交|坐公交车|坐班车|坐高铁|坐火车|骑车|骑自行车|骑电动车|骑摩托|走路|步行|打车|"
    r"\b(?:driv(?:e|es|ing)?|tak(?:e|es|ing)? (?:the |a )?(?:train|bus|subway|metro|tube|taxi|cab|ferry)|"
    r"bik(?:e|es|ing)?|cycl(?:e|es|ing)?|walk(?:s|ing)?|ride (?:my |a )?bike)\b",
    re.I,
)
#: How often, which is no value of the routine ("每天开车上班" / "现在坐地铁上班").
_FREQUENCY_RE = re.compile(
    r"每天|平时|通常|一般|经常|\b(?:usually|every day|daily|always|often)\b", re.I
)


def means_change(a: str, b: str) -> bool:
    """True when subjects ``a`` and ``b`` name one trip by two means ("每天开车上班" / "坐地铁
    上班", "driv to work" / "tak the train to work"): the same words once the means and how
    often are taken out, a means on both sides, and different means."""
    means_a = [m.group(0) for m in _MEANS_RE.finditer(a)]
    means_b = [m.group(0) for m in _MEANS_RE.finditer(b)]
    if not means_a or not means_b or means_a == means_b:
        return False

    def rest(text: str) -> str:
        text = _FREQUENCY_RE.sub(" ", _MEANS_RE.sub(" ", text))
        return re.sub(r"\s+", " ", text).strip(" ,，")

    return bool(rest(a)) and rest(a) == rest(b)


#: A count and a measure word before a Chinese object ("有三只猫" -> "猫"), or an English count
#: after "have" ("have three cats" -> "cats"); applied before English words are stemmed.
_COUNT_PREFIX_RE = re.compile(
    r"^(?:有|(?P<verb>养|买|租))?(?:了|着)?(?:\d+|[一二两三四五六七八九十]+)(?:个|只|条|辆|套|台|本|位|口|匹|头|间|部)|"
    r"^(?:have|has|own|owns|keep|keeps)\s+(?:\d+|two|three|four|five|six|seven|eight|nine|ten)\s+",
    re.I,
)


def strip_count(subject: str) -> str:
    """``subject`` without a leading count ("有三只猫" -> "猫", "养了一条狗" -> "养狗"); as it is
    when it has none."""
    rest = _COUNT_PREFIX_RE.sub(lambda m: m.group("verb") or "", subject).strip()
    return rest or subject


#: Attribute names that mean one attribute of a person, as ``rules_judge._subject`` leaves
#: them (English stemmed: "phone" -> "phon"), by canonical name.
_ATTRIBUTE_ALIASES = {
    "phone": (
        "电话",
        "电话号码",
        "手机",
        "手机号",
        "手机号码",
        "号码",
        "联系电话",
        "phone",
        "phone number",
        "number",
        "mobile",
        "mobile number",
        "cell",
        "cell number",
        "phon number",
        "mobil number",
    ),
    "email": (
        "邮箱",
        "电子邮箱",
        "邮箱地址",
        "电子邮件",
        "email",
        "e-mail",
        "email address",
        "mail",
    ),
    "birthday": ("生日", "出生日期", "birthday", "date of birth"),
    "manager": (
        "manager",
        "boss",
        "leader",
        "team lead",
        "领导",
        "老板",
        "上级",
        "直属领导",
        "组长",
    ),
    "plate": ("车牌", "车牌号", "车牌号码", "license plate", "plate number", "number plate"),
    "address": ("地址", "住址", "家庭住址", "address", "home address"),
}
_ALIAS_OF = {alias: name for name, aliases in _ATTRIBUTE_ALIASES.items() for alias in aliases}


def canonical_attribute(subject: str) -> str:
    """One name for an attribute however it is called ("手机号" / "电话" / "phone number" ->
    "phone"); ``subject`` itself when it has no alias. ``subject`` is lower case, plain words
    ("my new phone number" and "phone numbers" are read as "phone number")."""
    text = re.sub(
        r"^(?:(?:the user's|my|the|new)\s+)+|^新的?|(?<=[a-z])(?<!s)s$", "", subject.strip()
    )
    if text in _ALIAS_OF:
        return _ALIAS_OF[text]
    # the attribute named last ("work email", "组的leader", "家庭住址"): its head word
    head = re.search(r"(?:^|[\s\u4e00-\u9fff])([a-z]{3,})$|([\u4e00-\u9fff]{2})$", text)
    if head and head.start() > 0:
        return _ALIAS_OF.get(head.group(1) or head.group(2), subject)
    return subject


#: Diets that rule out eating meat (vegan also dairy and eggs), by their diet subject.
MEAT_FREE_DIETS = frozenset({"vegetarian", "vegan"})
_MEAT_EN = frozenset(
    "meat pork beef chicken lamb mutton steak bacon ham fish seafood turkey sausag sausage "
    "duck veal".split()
)
_MEAT_ZH_RE = re.compile(
    r"^(?:吃)?(?:[猪牛羊鸡鸭鱼]?肉|荤菜?|荤腥|鱼|海鲜|牛排|肉类|[猪牛羊鸡鸭]肉类?)$"
)
_EAT_RE = re.compile(r"\b(?:eat|eats|eating|ate|eaten|have|having)\b|吃", re.I)


def _eats_meat(key: dict[str, Any], subject: str) -> bool:
    """True when a fact key says its holder eats meat ("I eat meat now", "我现在吃肉了")."""
    if key.get("kind") == "diet":
        return False
    content = str(key.get("content") or "")
    if re.search(r"[\u4e00-\u9fff]", subject):
        return bool(_MEAT_ZH_RE.match(subject)) and ("吃" in content or "吃" in subject)
    words = [w for w in re.findall(r"[a-z]+", subject) if w not in ("eat", "ate", "some", "again")]
    return bool(words) and set(words) <= _MEAT_EN and bool(_EAT_RE.search(content))


def diet_conflict(
    new: dict[str, Any], old: dict[str, Any], new_subject: str, old_subject: str
) -> bool:
    """True when one fact is a meat-free diet ("I'm vegetarian", "我是素食者") and the other
    says the same holder eats meat ("I eat meat now", "我现在吃肉了"), with the same polarity
    (a vegetarian who eats meat; not a vegetarian who does not eat meat)."""
    for diet, diet_subject, other, other_subject in (
        (new, new_subject, old, old_subject),
        (old, old_subject, new, new_subject),
    ):
        if diet.get("kind") == "diet" and diet_subject in MEAT_FREE_DIETS:
            if _eats_meat(other, other_subject):
                return int(diet.get("polarity", 1)) == int(other.get("polarity", 1))
    return False
