"""Pattern tables of the ``rules`` provider (Chinese and English), kept apart from its logic.

Each pattern names a fact ``kind`` and how to read its subject/value from the match. The first
person ("我", "I", "my") and the third person used in stored facts ("用户", "the user") are both
accepted, so a stored fact can be re-analysed by the judge.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from memory_engine.llm.rules_names import is_place_name
from memory_engine.llm.rules_polarity import polarity as clause_polarity
from memory_engine.models import MemoryType

_ME_ZH = r"(?:我|用户)"
_ME_EN = r"(?:I|the user|[Tt]he user)"
#: Where an English value ends; a dot inside a value ("sam@new.io", "3.5 kg") or the period of
#: a title ("Dr. Park", "St. Mary's") does not end it.
_TAIL = (
    r"(?=$|[，,。!！;；]|(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bSt)(?<!\bMt)(?<!\bMrs)(?<!\bProf)"
    r"\.(?:\s|$)| and | but | because | so )"
)


@dataclass(frozen=True)
class Match:
    """What one sentence says: its kind, subject, polarity (+1/-1), value, type, importance."""

    kind: str
    subject: str
    memory_type: MemoryType = MemoryType.SEMANTIC
    importance: float = 0.6
    polarity: int = 1
    value: str | None = None
    tags: tuple[str, ...] = ()


def normalise_subject(text: str) -> str:
    """Lowercased subject without fillers ("any more", "很", "吃"), for comparisons."""
    t = re.sub(r"\s+", " ", text.strip().lower()[:400])
    t = re.sub(
        r"\b(?:any ?more|at all|very much|a lot|so much|now|too|either|really|actually|in fact)\b",
        "",
        t,
    )
    t = re.sub(r"^(?:the|a|an|some|eating|to eat|to drink|to)\s+", "", t.strip())
    t = re.sub(
        r"\s+(?:(?:last|next|this) (?:week|month|year|weekend)|(?:a|\d+) (?:days?|weeks?|months?|"
        r"years?) ago|yesterday|today|tomorrow|recently|lately|earlier)\s*$",
        "",
        t,
    )
    t = re.sub(r"^(?:吃|喝|用|看|听|玩)(?=.)", "", t)
    t = re.sub(r"[了的啦呀吧呢啊哦]+$", "", t)
    return re.sub(r"\s+", " ", t).strip(" ，,。.!！")


Reader = Callable[[re.Match[str]], Match | None]


def _p(pattern: str, flags: int = re.I) -> re.Pattern[str]:
    return re.compile(pattern, flags)


def _subj(m: re.Match[str], group: int | str = 1) -> str:
    return normalise_subject(m.group(group) or "")


_PATTERNS: list[tuple[re.Pattern[str], Reader]] = [
    # allergies
    (
        _p(
            r"对(.{1,12}?)(?:也|都|并)?(?:有点|有些|严重|特别|非常|很|比较|轻微)?(?:不再|不|没有|没)?过敏"
        ),
        lambda m: Match("allergy", _subj(m), importance=0.9, tags=("allergy", "health")),
    ),
    (
        _p(
            rf"{_ME_ZH}?(?:也|都|并)?(?:不再|不|没有|没)?([^不没对，,。]{{1,10}}?)(?:也|都)?(?:不再|不|没有|没)?过敏"
        ),
        lambda m: Match("allergy", _subj(m), importance=0.9, tags=("allergy", "health")),
    ),
    (
        _p(rf"allergic to ([\w\s-]{{1,30}}?){_TAIL}"),
        lambda m: Match("allergy", _subj(m), importance=0.9, tags=("allergy", "health")),
    ),
    (
        _p(r"(?:have|has) an? ([\w\s-]{1,30}?) allergy"),
        lambda m: Match("allergy", _subj(m), importance=0.9, tags=("allergy", "health")),
    ),
    # a favourite ("我最喜欢的颜色是蓝色"): one value per thing, as "my favourite X is Y"
    (
        _p(
            r"(?:我|用户)(?:现在|目前|一直|其实)?(?:最喜欢|最爱)的([^，,。.!！;；是]{1,10}?)是([^，,。.!！;；]{1,20})"
        ),
        lambda m: Match("attr", "favourite " + _subj(m), value=_subj(m, 2), tags=("preference",)),
    ),
    # preferences (negative first: 不喜欢 contains 喜欢)
    (
        _p(
            r"(?:不太喜欢|不怎么喜欢|不大喜欢|不太爱|不怎么爱|不喜欢|不爱吃|不爱喝|不爱|讨厌|不吃|不喝|受不了|吃不了|喝不了|不能吃|不能喝|不想要|反感)"
            r"([^，,。.!！;；]{1,20})"
        ),
        lambda m: Match("preference", _subj(m), importance=0.7, polarity=-1, tags=("preference",)),
    ),
    (
        _p(r"(?:喜欢|爱吃|爱喝|偏好|偏爱|更喜欢|最爱|热爱|习惯用)([^，,。.!！;；]{1,20})"),
        lambda m: Match("preference", _subj(m), importance=0.7, tags=("preference",)),
    ),
    (
        _p(
            rf"{_ME_EN} (?:really |also |just |still )?(?:don't|do not|doesn't|does not|no longer|"
            rf"can't|cannot|can no longer|won't) (?:really )?(?:like|love|enjoy|eat|drink|stand|"
            rf"want|use)s? ([\w\s'-]{{1,40}}?){_TAIL}"
        ),
        lambda m: Match("preference", _subj(m), importance=0.7, polarity=-1, tags=("preference",)),
    ),
    (
        _p(
            rf"{_ME_EN} (?:really |also |just )?(?:hate|dislike|avoid)s? ([\w\s'-]{{1,40}}?){_TAIL}"
        ),
        lambda m: Match("preference", _subj(m), importance=0.7, polarity=-1, tags=("preference",)),
    ),
    (
        _p(
            rf"{_ME_EN} (?:really |also |just |usually )?(?:like|love|enjoy|prefer|adore)s? "
            rf"([\w\s'-]{{1,40}}?){_TAIL}"
        ),
        lambda m: Match("preference", _subj(m), importance=0.7, tags=("preference",)),
    ),
    (
        _p(rf"\b(?:my|the user's) fav(?:ou?rite) ([\w\s-]{{1,20}}?) is ([\w\s'-]{{1,30}}?){_TAIL}"),
        lambda m: Match("attr", "favourite " + _subj(m), value=_subj(m, 2), tags=("preference",)),
    ),
    # forms of address (negative first: "别叫我老王" holds "叫我老王")
    (
        _p(r"(?:别|不要|不许|不用)(?:再)?(?:叫|称呼|喊)(?:我|用户)(?:为)?([^，,。.!！;；]{1,8})"),
        lambda m: Match(
            "address",
            "address",
            value=_subj(m),
            polarity=-1,
            importance=0.7,
            tags=("identity", "address"),
        ),
    ),
    (
        _p(
            r"(?:叫|称呼|喊)(?:我|用户)(?:为)?([^，,。.!！;；]{1,8}?)(?:就行了|就行|就好|就可以|吧|$)"
        ),
        lambda m: Match(
            "address", "address", value=_subj(m), importance=0.7, tags=("identity", "address")
        ),
    ),
    (
        _p(
            r"\b(?:don't|do not|never|please don't|stop) call(?:ing)? (?:me|the user) ([A-Z][\w'-]*(?: [A-Z][\w'-]*)?)",
            0,
        ),
        lambda m: Match(
            "address",
            "address",
            value=m.group(1).lower(),
            polarity=-1,
            importance=0.7,
            tags=("identity", "address"),
        ),
    ),
    (
        _p(
            r"\b(?:[Cc]all (?:me|the user)|[Aa]ddress (?:me|the user) as|I(?:'d| would)?(?: rather| prefer to| like to)? go by|[Tt]he user goes by|be called) ((?:(?:Dr|Mr|Mrs|Ms|Prof)\.? )?[A-Z][\w'-]*(?: [A-Z][\w'-]*)?)",
            0,
        ),
        lambda m: Match(
            "address",
            "address",
            value=m.group(1).lower(),
            importance=0.7,
            tags=("identity", "address"),
        ),
    ),
    # names
    (
        _p(r"^(?:I'm|I am) ([A-Z][a-z]+(?: [A-Z][a-z]+)?)$", 0),
        lambda m: Match("name", "name", value=m.group(1), importance=0.8, tags=("identity",)),
    ),
    (
        _p(r"(?:我|用户)(?:叫|的名字是|的名字叫|名叫)([\u4e00-\u9fffA-Za-z·]{1,12})"),
        lambda m: Match("name", "name", value=m.group(1), importance=0.8, tags=("identity",)),
    ),
    (
        _p(r"\b(?:[Mm]y|[Tt]he user's) name is ([A-Z][\w'-]*(?: [A-Z][\w'-]*)?)", 0),
        lambda m: Match("name", "name", value=m.group(1), importance=0.8, tags=("identity",)),
    ),
    # places
    (
        _p(
            r"(?:我|用户)(?:[^，,。住搬]{0,8}?)(?:住在|搬到了?|搬去了?|搬家到了?)([^，,。.!！;；]{1,15})"
        ),
        lambda m: Match("residence", "residence", value=_subj(m), importance=0.7, tags=("place",)),
    ),
    (
        _p(
            r"(?:我|用户)(?:现在|目前)?(?:已经)?(?:不再|不|没)?(?:是)?(?:在|就职于)([^，,。.!！;；]{1,15}?)(?:工作|上班|上学|读书|实习)"
        ),
        lambda m: Match("workplace", "workplace", value=_subj(m), importance=0.7, tags=("place",)),
    ),
    (
        _p(r"(?:我|用户)来自([^，,。.!！;；]{1,15})"),
        lambda m: Match("origin", "origin", value=_subj(m), importance=0.6, tags=("place",)),
    ),
    (
        _p(
            rf"(?:{_ME_EN} (?:now |currently )?(?:don't |do not |doesn't |does not |no longer )?"
            rf"(?:live|lives|am living|is living|am based|is based|am settled)|"
            rf"(?:I'm|I am|the user is)(?: now| currently| no longer| not)? (?:based|living|settled)) in "
            rf"([A-Z][\w\s-]{{1,30}}?){_TAIL}",
            0,
        ),
        lambda m: Match("residence", "residence", value=_subj(m), importance=0.7, tags=("place",)),
    ),
    (
        _p(
            rf"{_ME_EN} (?:just |recently |finally )?(?:moved|relocated) to "
            rf"([A-Z][\w\s-]{{1,30}}?)(?=\s+(?:back |last |this |in |on |a )|$|[，,。!！;；]|\.(?:\s|$))",
            0,
        ),
        lambda m: Match("residence", "residence", value=_subj(m), importance=0.7, tags=("place",)),
    ),
    (
        _p(
            rf"(?:{_ME_EN} (?:don't |do not |doesn't |does not |no longer )?(?:work|works|am working|"
            rf"is working)|I'm working|(?:I'm|I am|the user is)(?: not| no longer)?(?: working)?)"
            r" (?:at|for|with) ([A-Z][\w&.-]*(?: [A-Z][\w&.-]*)*)(?=$|[,.!;]| as | in | since | and | but )",
            0,
        ),
        lambda m: Match(
            "workplace", "workplace", value=_subj(m), importance=0.7, tags=("place", "work")
        ),
    ),
    (  # leaving a workplace denies it: "I left Acme", "我从腾讯离职了"
        _p(
            rf"{_ME_EN} (?:just |recently |have |has )?(?:left|quit|resigned from|"
            r"(?:no longer|don't|do not) work (?:at|for)) ([A-Z][\w&.-]*(?: [A-Z][\w&.-]*)*)"
            r"(?=$|[,.!;]| and | but | last | in )",
            0,
        ),
        lambda m: Match(
            "workplace",
            "workplace",
            value=_subj(m),
            importance=0.7,
            polarity=-1,
            tags=("place", "work"),
        ),
    ),
    (
        _p(r"(?:我|用户)(?:已经|刚|上个月|去年)?(?:从)?([^，,。.!！;；从]{1,15}?)(?:离职|辞职)"),
        lambda m: Match(
            "workplace",
            "workplace",
            value=_subj(m),
            importance=0.7,
            polarity=-1,
            tags=("place", "work"),
        ),
    ),
    (  # a role at a named employer: "我在美团做算法工程师" names the workplace (as in English)
        _p(
            r"(?:我|用户)(?:现在|目前)?在(?!家|家里|这|那)([^，,。.!！;；在]{2,10}?)(?:做|当|担任)"
            r"[^，,。.!！;；]{0,8}?(?:工程师|经理|设计师|总监|主管|专家|顾问|实习生|老师|医生|律师|研究员|"
            r"分析师|运营|开发|销售|编辑|记者|会计|护士|架构师|程序员|产品|技术|设计|测试|运维|市场|财务|人事)$"
        ),
        lambda m: _employer(_subj(m)),
    ),
    (  # joining an employer: "我上个月跳槽去了字节跳动", "我入职了美团", "I joined Microsoft last month"
        _p(
            r"(?:我|用户)(?:[^，,。跳入加]{0,8}?)(?:跳槽|入职)(?:去|到)?了?([^，,。.!！;；了]{2,15}?)"
            r"(?:工作|上班|团队)?(?:了|啦)?$"
        ),
        lambda m: Match(
            "workplace", "workplace", value=_subj(m), importance=0.7, tags=("place", "work")
        ),
    ),
    (
        _p(
            rf"{_ME_EN} (?:just |recently |have |has |'ve )?(?:joined|started (?:working )?at|"
            r"started a new job at|moved over to) ([A-Z][\w&.-]*(?: [A-Z][\w&.-]*)*)"
            r"(?=$|[,.!;]| as | in | last | this | and | but )",
            0,
        ),
        lambda m: Match(
            "workplace", "workplace", value=_subj(m), importance=0.7, tags=("place", "work")
        ),
    ),
    (  # a role at a named employer: "I'm now a designer at Umbrella" names the workplace
        _p(
            r"(?:I'm|I am|the user is) (?:now |currently |still )?an? [a-z][\w\s-]{2,30}? "
            r"(?:at|for) ([A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*)*)(?=$|[,.!;]| and | but | since )",
            0,
        ),
        lambda m: Match(
            "workplace", "workplace", value=_subj(m), importance=0.7, tags=("place", "work")
        ),
    ),
    (
        _p(rf"(?:{_ME_EN} am|I'm|the user is) from ([A-Z][\w\s-]{{1,30}}?){_TAIL}", 0),
        lambda m: Match("origin", "origin", value=_subj(m), importance=0.6, tags=("place",)),
    ),
    # occupation
    (
        _p(
            r"(?:我|用户)(?:现在|目前)?(?:在[^，,。做当]{1,10})?(?:做|当)(?:一名|一个|个|名)?"
            r"(律师|医生|护士|老师|教师|程序员|工程师|设计师|会计|记者|编辑|销售|翻译|厨师|司机|警察|"
            r"产品经理|产品|运营|客服|销售|律师助理|研究员|公务员|模特|演员|歌手|主播|博主|"
            r"[\u4e00-\u9fff]{1,4}(?:师|员|工|经理))(?:工作)?$"
        ),
        lambda m: Match(
            "occupation", "occupation", value=_subj(m), importance=0.7, tags=("identity",)
        ),
    ),
    (
        _p(r"(?:我|用户)是(?:一名|一个|一位|个|名)([^，,。.!！;；]{1,15})"),
        lambda m: Match(
            "occupation", "occupation", value=_subj(m), importance=0.7, tags=("identity",)
        ),
    ),
    (
        _p(
            r"(?:I'm|I am|the user is|I work as|the user works as) an? ([a-z][\w\s-]{2,30}?)"
            r"(?=$|[,.!;]| at | for | in )"
        ),
        lambda m: Match(
            "occupation", "occupation", value=_subj(m), importance=0.7, tags=("identity",)
        ),
    ),
    # possessions / family
    (
        _p(
            r"(?:我|用户)(?:家)?有(?:一|两|三|四|\d+)(?:只|个|条|辆|位|套|台|匹)([^，,。.!！;；]{1,10})"
        ),
        lambda m: Match("has", _subj(m), importance=0.6, tags=("personal",)),
    ),
    (
        _p(
            rf"{_ME_EN} (?:don't |do not |doesn't |does not |no longer )?(?:have|has|own|owns) "
            rf"(?:a|an|any|two|three|four|\d+) ([\w\s-]{{1,30}}?){_TAIL}"
        ),
        lambda m: Match("has", _subj(m), importance=0.6, tags=("personal",)),
    ),
    # amounts
    (
        _p(
            r"(预算|工资|月薪|年薪|房租|报价|贷款|存款|花了|付了|价格|费用)[^，,。.!！;；\d一二三四五六七八九十两]{0,6}"
            r"((?:[\d,.]+\s*(?:万|千|百)?|[一二三四五六七八九十两]+(?:百|千|万|亿)[一二三四五六七八九十两百千万]*)"
            r"\s*(?:元|块|美元|欧元|rmb|RMB)?)"
        ),
        lambda m: Match(
            "amount", normalise_subject(m.group(1)), value=m.group(2).strip(), tags=("amount",)
        ),
    ),
    (
        _p(
            r"\b(budget|salary|rent|loan|savings|price|cost|fee)\b[^.,;!\d$€¥]{0,30}"
            r"([$€¥£]\s?[\d,.]+\s*(?:k|m|million|thousand)?|[\d,.]+\s*(?:dollars|usd|eur|euros|yuan|"
            r"rmb|k)\b)"
        ),
        lambda m: Match("amount", m.group(1).lower(), value=m.group(2).strip(), tags=("amount",)),
    ),
    (
        _p(r"\b(?:spent|paid|saved) ([$€¥£]\s?[\d,.]+|[\d,.]+ (?:dollars|euros|yuan))"),
        lambda m: Match("amount", "spent", value=m.group(1), tags=("amount",)),
    ),
    # health conditions and medication
    (
        _p(
            r"(?:我|用户)(?:也|一直)?(?:有|患有|得了|得过|确诊了?)(哮喘|糖尿病|高血压|低血糖|心脏病|癫痫|"
            r"偏头痛|抑郁症|焦虑症|胃病|痛风|[\u4e00-\u9fff]{1,6}?(?:病|症|炎|癌))"
        ),
        lambda m: Match("health", _subj(m), importance=0.9, tags=("health",)),
    ),
    (
        _p(
            rf"{_ME_EN} (?:have|has|suffer from|suffers from|was diagnosed with|am diagnosed with) "
            r"(asthma|diabetes|type [12] diabetes|epilepsy|high blood pressure|hypertension|"
            r"a heart condition|migraines?|celiac disease|[\w-]+ disease)\b"
        ),
        lambda m: Match("health", _subj(m), importance=0.9, tags=("health",)),
    ),
    (
        _p(
            rf"{_ME_EN} (?:take|takes|am taking|is taking) ([\w-]{{3,30}}) (?:daily|every|each|for|twice)"
        ),
        lambda m: Match("health", _subj(m), importance=0.9, tags=("health", "medication")),
    ),
    # diet and lasting conditions ("I'm vegetarian", "我吃素")
    (
        _p(
            r"\b(?:I'm|I am|the user is) (?:not |no longer )?(?:a |an )?(vegetarian|vegan|pescatarian|"
            r"lactose[- ]intolerant|gluten[- ]free|diabetic|celiac|coeliac|teetotal|"
            r"left-handed|colou?r-?blind|pregnant|halal|kosher)\b"
        ),
        lambda m: Match(
            "diet",
            diet_subject(m.group(1)),
            value=m.group(1).lower(),
            importance=0.8,
            tags=("health", "preference"),
        ),
    ),
    (
        _p(
            r"(?:我|用户)(?:是)?(?:一个|一名)?(吃素|素食者?|纯素|乳糖不耐受?|糖尿病患者?|清真|左撇子|色盲|怀孕了?)"
        ),
        lambda m: Match(
            "diet",
            diet_subject(m.group(1)),
            value=m.group(1),
            importance=0.8,
            tags=("health", "preference"),
        ),
    ),
    # our X is Y ("我们最近配置的精排模型是 bge-reranker")
    (
        _p(r"(?:我们|咱们|用户团队)(?:的)?([^，,。.!！;；是]{1,24}?)是([^，,。.!！;；]{1,30})"),
        lambda m: Match(
            "attr", "team " + _subj(m), value=_subj(m, 2), importance=0.6, tags=("work",)
        ),
    ),
    (
        _p(
            rf"\b(?:our|the user's team's) ([\w\s'-]{{1,25}}?) (?:is|are) ([\w\s'@.:/-]{{1,40}}?){_TAIL}"
        ),
        lambda m: Match(
            "attr", "team " + _subj(m), value=_subj(m, 2), importance=0.6, tags=("work",)
        ),
    ),
    # "工作邮箱改为 X": an attribute changed to a new value
    (
        _p(
            r"^(?:我的|用户的)?([\u4e00-\u9fff]{2,8}?)(?:改为|改成|换成|变成|更新为|更新成)\s*([^，,。;；]{1,40}?)(?:了)?$"
        ),
        lambda m: Match("attr", _subj(m), value=_subj(m, 2), importance=0.6, tags=("personal",)),
    ),
    # an age: "My son is 7", "I'm actually 34", "我女儿今年8岁"
    (
        _p(
            r"(?:(?:^|\s)(?:is|am|are|turned|turns)|'m)(?: actually| now| already)? (\d{1,3})"
            r"(?: years? old)?(?: (?:in|on|last|this|yesterday|today)\b[^,;]{0,30})?$"
        ),
        lambda m: Match("attr", "age", value=m.group(1), importance=0.6, tags=("personal",)),
    ),
    (
        _p(r"(?:今年|已经|现在)?(\d{1,3}|[一二三四五六七八九十]{1,3})(?:周)?岁(?:了|半)?$"),
        lambda m: Match("attr", "age", value=m.group(1), importance=0.6, tags=("personal",)),
    ),
    # my X is Y ("我生日是…" without 的 for the usual attributes)
    (
        _p(
            r"(?:我|用户)(生日|名字|电话|手机号|邮箱|地址|年龄|血型|身高|体重|星座|车牌|工号|学号|微信)"
            r"(?:是|为)((?:[^，,。.!！;；]|\.(?=\S)){1,20})"
        ),
        lambda m: Match("attr", _subj(m), value=_subj(m, 2), importance=0.6, tags=("personal",)),
    ),
    # my X is Y
    (
        _p(
            r"(?:我|用户)的([^，,。.!！;；是]{1,10}?)(?:是|叫|在)((?:[^，,。.!！;；]|\.(?=\S)){1,20})"
        ),
        lambda m: Match("attr", _subj(m), value=_subj(m, 2), importance=0.6, tags=("personal",)),
    ),
    (
        _p(
            rf"\b(?:my|the user's) ([\w\s'-]{{1,25}}?) (?:is|are|was) ([\w\s'@.:/-]{{1,40}}?){_TAIL}"
        ),
        lambda m: Match("attr", _subj(m), value=_subj(m, 2), importance=0.6, tags=("personal",)),
    ),
    # deadlines and dated events
    (
        _p(r"(截止|截止日期|之前交|前交|前提交|到期|deadline|due|ddl)"),
        lambda m: Match("deadline", "deadline", importance=0.8, tags=("deadline",)),
    ),
    (
        _p(
            r"(航班|飞机|机票|高铁|火车|预约|约了|面试|考试|生日|纪念日|婚礼|体检|开会|会议|出差|旅行|去了|回了|"
            r"flight|appointment|interview|exam|birthday|anniversary|wedding|trip|went to|visited|"
            r"travel+ed to|flew to|meeting)"
        ),
        lambda m: Match("event", normalise_subject(m.group(1)), importance=0.6, tags=("event",)),
    ),
]


#: Kinds whose predicate stands before the value group: a negator after it is in the object.
_VERB_FIRST = {"preference", "has", "residence", "workplace", "origin", "occupation"}


_DIET_CANONICAL = {
    "素": "vegetarian",
    "吃素": "vegetarian",
    "素食": "vegetarian",
    "素食者": "vegetarian",
    "纯素": "vegan",
}


def diet_subject(value: str) -> str:
    """The subject of a diet or lasting condition: one per condition, the same in Chinese and
    English for vegetarian/vegan ("我吃素" = "我是素食者" = "I'm vegetarian")."""
    text = value.strip().lower()
    return _DIET_CANONICAL.get(text, text.replace("-", " "))


_NEW_RE = re.compile(r"^(?:new |新的|新(?=[\u4e00-\u9fff]{2}))")


def _employer(name: str) -> Match | None:
    """The workplace of "我在美团做算法工程师", or None when the place is a city or region
    ("在深圳做律师": an occupation, read by a later pattern)."""
    if is_place_name(name):
        return None
    return Match("workplace", "workplace", value=name, importance=0.7, tags=("place", "work"))


def match_patterns(sentence: str) -> Match | None:
    """The first pattern that matches ``sentence`` (table order), or None. The polarity of a
    positive pattern is read from the clause (``rules_polarity``)."""
    for pattern, read in _PATTERNS:
        m = pattern.search(sentence)
        if m:
            found = read(m)
            if found is None:  # the pattern's reader declined (a place, not an employer)
                continue
            if found.kind in ("deadline", "event") and not _has_time(sentence):
                continue
            if found.kind == "attr" and _NEW_RE.match(found.subject):
                # "My new number is …", "我的新手机号是…": the value that replaces the old one
                subject = _NEW_RE.sub("", found.subject)
                found = replace(found, subject=subject, tags=(*found.tags, "correction"))
            if found.polarity == 1 and found.kind not in ("attr", "amount", "name", "address"):
                end = m.start(1) if found.kind in _VERB_FIRST and m.re.groups else None
                found = replace(found, polarity=clause_polarity(sentence, end))
            return found
    return None


_TIME_RE = re.compile(
    r"\d{1,4}[-/月年.]\d{1,2}|\d{1,2}[日号]|\d{1,2}(?:点|:\d\d)|[上下这本](?:个)?(?:周|星期|月)|"
    r"(?:大)?[前昨今明后]天|去年|今年|明年|(?:周|星期|礼拜)[一二三四五六日天]|\d+\s*天[前后]|"
    r"\b(?:yesterday|today|tomorrow|tonight|last|next|this|ago|monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday|january|february|march|april|may|june|july|august|september|"
    r"october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\b|"
    r"\b\d{1,2}(?:st|nd|rd|th)?\b",
    re.I,
)


def _has_time(sentence: str) -> bool:
    return bool(_TIME_RE.search(sentence))


def has_time(sentence: str) -> bool:
    """True when ``sentence`` names a date, weekday or clock time."""
    return _has_time(sentence)


_BARE_NUMBER_RE = re.compile(
    r"(?<![\d:./-])\b\d{1,2}\b(?![\d:./-]|st|nd|rd|th|点|号|日|月|am|pm| ?(?:am|pm)\b)", re.I
)


def has_date(sentence: str) -> bool:
    """``has_time`` without bare small numbers ("I'm 34" names no date; "the 14th" does)."""
    return has_time(_BARE_NUMBER_RE.sub(" ", sentence))
