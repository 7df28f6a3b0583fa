"""Names of people and organisations in a Chinese clause, for the ``rules`` extractor's
entities (no NER model; patterns over jieba words).

* people: 老/小 + a common surname (老张, 小王; never 小王子: the name must stand as a word,
  ``entities.stands_as_word``), a surname + a title or kinship word (李医生, 王经理, 张总,
  刘律师, 陈老师);
* organisations: a word + an organisation suffix (小米公司, 星河科技, 招商银行, 协和医院, 北京大学),
  and a name followed by 那边 / 方面 / 的人 / 团队 at the start of a clause (腾讯那边通知我).
"""

from __future__ import annotations

import logging
import re

from memory_engine.entities import stands_as_word
from memory_engine.stopwords import is_stopword

#: The most common Chinese surnames (one character each).
SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程"
    "苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚"
    "邵万钱严覃武戴莫孔向汤"
)
_TITLES = (
    "总|工|经理|老师|医生|大夫|律师|主任|教授|博士|老板|阿姨|叔叔|师傅|总监|主管|院长|校长|警官|"
    "同学|姐|哥|叔|姨|老|秘书|会计"
)
PERSON_RE = re.compile(rf"(?:老|小|阿)[{SURNAMES}]|[{SURNAMES}](?:{_TITLES})")
_ORG_SUFFIX_RE = re.compile(
    r"([\u4e00-\u9fffA-Za-z0-9]{2,6}?)(公司|集团|科技|银行|大学|学院|医院|研究院|研究所|事务所|"
    r"工作室|基金|证券|保险|航空|电视台|出版社|物流|快递|地产|传媒|通信|制药|药业|律所)"
)
_COUNTERPART_START_RE = re.compile(
    r"^((?:(?![和跟与同在的给说])[\u4e00-\u9fffA-Za-z0-9]){2,8}?)(?:那边|方面|的人|团队|的HR|的hr|的招聘|"
    r"的工作人员|的客服|的销售|的负责人|的同事|的老板|的面试官|的经理|的对接人|的项目经理|的工程师|"
    r"的代表|的采购|的财务|的法务|的律师)(?=[\u4e00-\u9fff\d])"
)
#: Words before an organisation suffix that name no organisation ("我们公司", "这家银行").
_NOT_ORG_HEAD_RE = re.compile(
    r"^(?:我们|你们|他们|她们|咱们|这家|那家|这个|那个|一家|本|总|分|子|母)"
)


#: A proper name inside an English clause (not its first word): "Priya from Globex called".
_EN_NAME_RE = re.compile(r"(?<=[a-z,] )(?:Dr\. |Mr\. |Ms\. |Mrs\. )?[A-Z][a-z]+(?:[A-Z][a-z]+)*\b")
#: Capitalised words that are no name inside a clause.
EN_NOT_NAMES = frozenset(
    "I Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April "
    "May June July August September October November December English Chinese OK".split()
)


def names_in(clause: str) -> list[str]:
    """Proper names of a clause: :func:`chinese_names` for Chinese, otherwise capitalised
    words after the first one (weekdays, months and languages left out)."""
    if re.search(r"[\u4e00-\u9fff]", clause):
        return chinese_names(clause)
    found = [m.group(0) for m in _EN_NAME_RE.finditer(clause)]
    first = re.match(r"([A-Z][a-z]+(?:[A-Z][a-z]+)*)'s\b", clause)  # "Initech's CTO joins"
    return [n for n in ([first.group(1)] if first else []) + found if n not in EN_NOT_NAMES]


#: Endings of a Chinese place name (城市, 区县, 省份).
_ZH_PLACE_END_RE = re.compile(r"(?:省|市|区|县|镇|村|州|岛|湾)$")


def is_place_name(name: str) -> bool:
    """True when the Chinese ``name`` is a place (深圳, 上海浦东, 朝阳区), not an organisation
    (美团, 腾讯): a place ending, or jieba's part of speech ``ns`` for its first word. The
    tagger's dictionary loads on the first call."""
    if not re.search(r"[\u4e00-\u9fff]", name):
        return False
    if _ZH_PLACE_END_RE.search(name):
        return True
    import jieba
    import jieba.posseg

    jieba.setLogLevel(logging.WARNING)  # no "Building prefix dict" lines on stderr
    words = jieba.posseg.lcut(name)
    return bool(words) and words[0].flag.startswith("ns")


def chinese_names(clause: str) -> list[str]:
    """Person and organisation names of a Chinese clause, in order, each once (see module
    docstring); [] for a clause without Han characters."""
    if not re.search(r"[\u4e00-\u9fff]", clause):
        return []
    out: list[str] = []
    for m in PERSON_RE.finditer(clause):
        if stands_as_word(clause, m.group(0)):
            out.append(m.group(0))
    for m in _ORG_SUFFIX_RE.finditer(clause):
        head = re.sub(r"^.*?(?:在|和|跟|与|给|是|叫|去|到|从|被|让|对|来|回)", "", m.group(1))
        if len(head) >= 2 and not _NOT_ORG_HEAD_RE.match(head) and not is_stopword(head):
            out.append(head + m.group(2))
    start = _COUNTERPART_START_RE.match(clause)
    if (
        start
        and not is_stopword(start.group(1))
        and not re.match(r"^[我你他她它这那]", start.group(1))
    ):
        out.append(start.group(1))
    return list(dict.fromkeys(out))


__all__ = [
    "PERSON_RE",
    "EN_COMMON",
    "EN_NOT_NAMES",
    "EN_NOT_SUBJECT",
    "SURNAMES",
    "chinese_names",
    "is_place_name",
    "names_in",
]


#: English words that never start or make a subject name ("it", "this", "please" ...).
EN_NOT_SUBJECT = {
    "it",
    "this",
    "that",
    "there",
    "i",
    "you",
    "we",
    "they",
    "he",
    "she",
    "which",
    "what",
    "who",
    "let",
    "please",
    "so",
    "and",
    "but",
    "the",
    "a",
    "an",
    "everyone",
    "nothing",
}
EN_COMMON = EN_NOT_SUBJECT | {
    "my",
    "our",
    "met",
    "today",
    "yesterday",
    "tomorrow",
    "from",
    "always",
    "never",
    "call",
    "don't",
    "actually",
    "make",
}
