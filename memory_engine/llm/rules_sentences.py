"""Sentence-level reading for the ``rules`` extractor: sentences of an input, small talk
(greetings, how one feels, the weather), a Chinese clause whose subject was dropped, clauses that
only announce a change, the sentences a fact came from, and whether a clause names someone.
"""

from __future__ import annotations

import re
from dataclasses import replace

from memory_engine.llm import rules_facts
from memory_engine.llm.rules_acts import CHITCHAT_RE, QUESTION_RE, SENTENCE_RE, TEMPORARY_RE
from memory_engine.llm.rules_names import names_in
from memory_engine.llm.rules_patterns import Match
from memory_engine.llm.rules_polarity import is_chinese
from memory_engine.llm.schemas import Fact
from memory_engine.models import MemoryType
from memory_engine.text import tokenize

__all__ = [
    "PASSING_KINDS",
    "reworded",
    "PASSING_RE",
    "adds_detail",
    "is_chitchat",
    "names_someone",
    "source_sentences",
    "split_sentences",
    "subject_dropped",
    "without_announcements",
]


_ABBREV_RE = re.compile(
    r"\b(?:Dr|Mr|Mrs|Ms|Prof|St|Jr|Sr|vs|etc|e\.g|i\.e|No|approx|Inc|Corp|Co|Ltd|Bros)\.$", re.I
)
#: Capital initials before a name ("J.P. Morgan", "the U.S. office"): no sentence ends there.
_INITIALS_RE = re.compile(r"(?<![\w.])[A-Z]\.(?:[A-Z]\.)+$")


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` (。！？!?；;. and newlines end one; commas and the dot of an
    abbreviation such as "Dr." do not)."""
    out: list[str] = []
    for piece in (s.strip() for s in SENTENCE_RE.split(text) if s and s.strip()):
        if out and (_ABBREV_RE.search(out[-1]) or _INITIALS_RE.search(out[-1])):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def is_chitchat(text: str) -> bool:
    """True when every clause is a greeting, thanks, acknowledgement or emoji."""
    clauses = [c.strip() for c in re.split(r"[，,。.!！?？~～]+", text) if c.strip()]
    return all(
        CHITCHAT_RE.fullmatch(c)
        or not re.search(r"\w", c)
        or all(CHITCHAT_RE.fullmatch(w) or not re.search(r"\w", w) for w in c.split())
        for c in clauses
    )


#: A plan called off or moved, without a subject: "体检取消了", "周五的聚餐改期了".
_CALLED_OFF_RE = re.compile(r"^[\u4e00-\u9fff\d]{2,12}?(?:被)?(?:取消|改期|延期|推迟)了?$")


def subject_dropped(clause: str, *, opens: bool = False) -> tuple[str, Match] | None:
    """A Chinese clause without its subject that a first-person pattern recognises when the
    user is put back ("现在住在深圳" -> "我现在住在深圳"), with that match; else None. A clause
    that ``opens`` its sentence (no fact read before it) may also be a plain statement about
    what the user does ("在学日语"); a later one ("练了八年") continues the fact before it."""
    if not is_chinese(clause) or re.match(r"^(?:我|用户|他|她|它|你)", clause):
        return None
    if re.match(r"^(?:我|用户)(?!们)", TIME_FIRST_RE.sub("", clause)):
        return None  # "下周我请假": the subject is there, after the time
    restored = "我" + clause
    found = rules_facts.analyse(restored)
    if (
        found is not None
        and found.kind in ("statement", "event")
        and TIME_FIRST_RE.match(clause)
        and TIME_FIRST_RE.sub("", clause).strip("，,。！!～~啊呀吧")[2:]  # 3+ characters of plan
        and not PASSING_RE.search(clause)
    ):
        # a dated plan said without its subject ("周五晚上和朋友吃火锅"): the user's event
        return restored, replace(found, kind="event", memory_type=MemoryType.EPISODIC)
    if found is not None and _CALLED_OFF_RE.match(clause):
        # a plan called off or moved, said without its subject ("体检取消了", "聚餐改期了")
        return restored, replace(found, kind="statement", memory_type=MemoryType.EPISODIC)
    if found is not None and found.kind in ("statement", "state") and TEMPORARY_RE.search(clause):
        # a temporary state said without its subject ("这个月在控糖")
        return restored, replace(found, kind="state", tags=("state",))
    if (
        opens
        and found is not None
        and found.kind == "statement"
        and _ZH_PERSONAL_RE.match(clause)
        and not re.search(r"一下|一会|吧$|呢$|[?？]|你|吗", clause)
    ):
        # what one does or is, said without the subject ("在学日语", "目前在读研究生",
        # "烟瘾挺大的", "偶尔也去露营")
        return restored, found
    if found is None or found.kind in ("statement", "instruction", "event", "state", "about"):
        return None  # only a recognised attribute, preference or plan is put back on the user
    return restored, found


#: The opening of a Chinese clause about the speaker's own activity, skill or habit when the
#: subject is left out: an aspect or frequency word before an activity verb, a habit noun.
_ZH_PERSONAL_RE = re.compile(
    r"^(?:目前|现在|一直|平时|最近)*(?:在|正在)(?:学|读|考|备考|练)(?!校|习|会|完)[\u4e00-\u9fffA-Za-z]{2,}|"
    r"^[\u4e00-\u9fff]{1,4}(?:瘾|癖)|"
    r"^(?:偶尔|经常|平时|周末|每周|每天)(?:都|也|会|常)*(?:去|练|学|跑|爬|游|骑)[\u4e00-\u9fff]{1,}|"
    # what one stopped: "现在不用再吃降压药了", "已经不再抽烟了"
    r"^(?:现在|已经|目前|早就)*(?:不用再|不需要再|不再|再也不|不用)(?:吃|喝|用|抽|去|做|练|学|打|戴|"
    r"服用)(?!了|啦)[\u4e00-\u9fffA-Za-z]+"
)  #: An English clause that leaves out "I": a lead word ("also", "still", "btw") or an -ing
#: verb first ("Learning Rust on the side", "Not drinking beer anymore",
#: "Also have a few rosemary plants").
_EN_DROPPED_RE = re.compile(
    r"^(?P<lead>(?:(?:also|still|currently|now|lately|recently|btw|fyi|oh and|and)\b,?\s+)+)?"
    r"(?P<neg>(?:not|never|no longer)\s+)?(?P<verb>[a-z]+)\b",
    re.I,
)
#: -ing verbs that, first in a clause, tell what the speaker is doing for a while
#: ("Learning Rust on the side", "Training for a marathon"), not a reply ("Working on it").
_EN_ONGOING_VERBS = frozenset(
    "learning studying training practicing practising taking picking playing coaching teaching "
    "volunteering building".split()
)
#: Past verbs of a change that, first in a clause with an object, tell what the speaker did
#: ("cancelled Spotify", "sold the Civic", "quit my job", "started eating fish again").
_EN_CHANGED_VERBS = frozenset(
    "cancelled canceled quit sold stopped dropped deleted switched moved started gave left "
    "joined adopted bought ended unsubscribed upgraded downgraded retired".split()
)
#: What follows "doing" in a passing reply, not an activity ("doing fine", "doing it now").
_EN_DOING_REPLY_RE = re.compile(
    r"^doing (?:fine|well|good|great|ok|okay|alright|better|worse|nothing|it|that|this|so|pretty|"
    r"much|the)\b",
    re.I,
)
#: Base verbs that, after a lead word, say what the speaker does ("Also have", "Still play").
_EN_BASE_VERBS = frozenset(
    "have do play live work grow speak use drive run take go learn own prefer eat drink commute "
    "study teach write read keep cook bake ride walk swim travel visit watch practice practise "
    "volunteer coach manage lead build hike climb paint".split()
)
#: Without a lead word, only where one lives or works ("Live in Leeds", "Work at a hospital").
_EN_PLACE_VERB_RE = re.compile(r"^(?:live|work)s? (?:in|at|as|for|from) ", re.I)
#: The assistant or the listener named: a request or a greeting, not a fact.
_EN_TO_YOU_RE = re.compile(r"\b(?:you|your|me|please)\b|[?!]", re.I)


#: Head nouns of an attribute said without its owner ("Work laptop is a Dell XPS 13",
#: "工作电脑是MacBook", "Home base is Austin").
_OWNED_HEADS = (
    "laptop|computer|phone|cell|car|editor|browser|email|number|address|birthday|manager|boss|"
    "desk|office|home base|hometown|name|nickname|team|role"
)
_ZH_OWNED_HEADS = (
    "电脑|笔记本|手机|手机号|电话|车|车牌|邮箱|地址|住址|生日|工位|座位|办公室|领导|老板|名字|工号"
)
_EN_OWNED_RE = re.compile(
    rf"^(?P<attr>(?:[A-Za-z]+ ){{0,2}}(?:{_OWNED_HEADS})) (?P<verb>is|are|'s) (?P<value>\S.*)$",
    re.I,
)
_ZH_OWNED_RE = re.compile(
    rf"^(?P<attr>[\u4e00-\u9fff]{{0,3}}(?:{_ZH_OWNED_HEADS}))(?P<verb>是|在|叫)(?P<value>\S.*)$"
)


def owner_dropped(clause: str) -> str | None:
    """``clause`` with the owner put back on an attribute said without it ("Work laptop is a
    Dell XPS 13" -> "My work laptop is a Dell XPS 13", "工作电脑是MacBook" -> "我的工作电脑是
    MacBook"), or None when it starts with no such attribute."""
    text = clause.strip()
    if len(text) > 200:
        return None
    if is_chinese(text):
        m = _ZH_OWNED_RE.match(text)
        if not m or re.match(r"^(?:我|你|他|她|它|用户)", text) or not _names_a_value(m):
            return None
        return "我的" + text
    m = _EN_OWNED_RE.match(text)
    if not m or re.match(r"^(?:my|your|his|her|its|our|their|the|this|that)\b", text, re.I):
        return None
    if not _names_a_value(m):
        return None  # "Car is in the shop", "Laptop is dead lol": a state, not the value
    return "My " + text[:1].lower() + text[1:]


def _names_a_value(m: re.Match[str]) -> bool:
    """True when the value of an owner-less attribute is one: a name or number ("a Dell XPS
    13", "MacBook", "13812345678"), not a state or a question ("在充电", "dead lol", "coming
    up", "是谁")."""
    if m.group("verb") not in ("is", "are", "'s", "是", "叫"):
        return False
    value = re.sub(r"^(?:an?|the)\s+", "", m.group("value").strip())
    if re.search(r"谁|哪|什么|多少|几|吗|呢|[?？!！]", value):
        return False
    if re.search(r"[\u4e00-\u9fff]", m.group("attr")):
        return re.match(r"[A-Za-z0-9]", value) is not None  # "MacBook", "13812345678"
    return re.match(r"[A-Z0-9]", value) is not None


#: Base verbs that, first in a clause, tell about the speaker rather than ask the assistant
#: to do something ("Live in Leeds", not "Play some jazz").
_EN_STATIVE_VERBS = frozenset(
    "live work grow speak drive commute own prefer love like hate enjoy volunteer coach teach "
    "study hike climb swim cycle".split()
)


def en_subject_dropped(clause: str) -> str | None:
    """``clause`` with its left-out first-person subject put back ("Learning Rust on the side"
    -> "I'm learning Rust on the side", "Also have a few rosemary plants" -> "I also have a
    few rosemary plants"), or None when it has a subject or reads as a request."""
    if is_chinese(clause):
        return None
    m = _EN_DROPPED_RE.match(clause.strip())
    if not m:
        return None
    verb = m.group("verb").lower()
    lead = (m.group("lead") or "").strip(" ,").lower()
    rest = clause.strip()[m.end("lead") if m.group("lead") else 0 :]
    rest = rest[:1].lower() + rest[1:]
    if len(clause) > 200 or _EN_TO_YOU_RE.search(clause):
        return None
    if verb in _EN_ONGOING_VERBS and re.match(r"\S+ (?!it\b|on it\b|is\b|was\b|are\b)\S", rest):
        return f"I'm {lead + ' ' if lead else ''}{rest}"
    if (
        verb == "doing"
        and not _EN_DOING_REPLY_RE.match(rest)
        and re.match(r"doing (?:a|an|some) \w", rest)
    ):
        return f"I'm {lead + ' ' if lead else ''}{rest}"  # "doing a caffeine detox until Friday"
    if (
        not m.group("neg")
        and verb in _EN_CHANGED_VERBS
        and re.match(r"\S+ (?!it\b|that\b|this\b|them\b|up\b|out\b)\S", rest)
    ):
        return f"I {lead + ' ' if lead else ''}{rest}"  # "cancelled Spotify"
    if not lead and m.group("neg") and verb.endswith("ing"):
        return f"I'm {rest}"  # "Not drinking beer anymore"
    if not lead and not m.group("neg") and _EN_PLACE_VERB_RE.match(rest):
        return f"I {rest}"  # "Live in Leeds with two cats", "Work at a hospital"
    if lead and (verb in _EN_BASE_VERBS or m.group("neg")):
        lead = re.sub(r"^(?:btw|fyi|oh and|and)\b,?\s*", "", lead)
        return f"I {lead + ' ' if lead else ''}{rest}"
    return None


#: How one feels or what the weather is right now, a greeting or a joke: small talk, never a
#: fact ("今天好累啊", "我今天有点无聊", "周末愉快", "哈哈笑死我了", "I'm bored", "I'm just curious").
PASSING_RE = re.compile(
    r"^(?:我|用户|I'm|I am|the user is|that's|this is|it's)?\s*(?:今天|现在|最近|真的|有点|好|很|真|太|"
    r"特别|just|so|really|a bit|a little|kind of|pretty|very|\s)*(?:无聊|累|困|饿|开心|高兴|难过|烦|"
    r"郁闷|愉快|快乐|bored|tired|curious|hungry|sleepy|happy|sad|excited|confused|interesting|"
    r"funny|cool)(?:了|啊|呀|死了|极了)?$|天气(?:真|很|挺|好|不错)|笑死|^(?:明天|周末|下周|今晚)见$|"
    r"怎么样$|^[\u4e00-\u9fff]{0,4}(?:下雨|下雪|刮风|降温|升温|雾霾|台风)(?:了|啦)?$|^(?:that's|that is|it's|this is) (?:so |really |very |pretty )?(?:interesting|funny|cool|"
    r"great|nice|amazing|awesome|fascinating)\b|"
    # what one is doing this minute: "我先去吃个饭", "待会聊", "我刚下班", "我在地铁上",
    # "I'm heading out for lunch", "back in 30", "Sorry, I was away for a bit", "brb"
    r"^(?:我|用户)?(?:先|马上|这就|得|要)?去(?:吃个?饭|吃午饭|吃晚饭|吃点东西|洗个?澡|睡觉|睡了|"
    r"开个?会|上个?厕所|洗手间|忙了?|买个?东西|拿个?快递|接个?孩子|做饭)(?:了|啦)?$|"
    r"^(?:我|用户)?(?:待会儿?|一会儿?|回头|等下|晚点)(?:再)?(?:聊|说|回来|见|找你)(?:吧|哈|啊)?$|"
    r"^(?:我|用户)?刚(?:刚)?(?:下班|下课|到家|到公司|起床|睡醒|醒|吃完饭?|回来|忙完|开完会)(?:了|啊)?$|"
    r"^(?:我|用户)?(?:现在|正)?(?:在|正在)(?:地铁|公交|路|车|高铁|飞机|出租车|外面)上?(?:呢)?$|"
    r"信号不(?:太|怎么)?好|^(?:我|用户)?(?:累|困|饿|热|冷|忙)死了?$|"
    r"^(?:I'm |I am |the user is )?(?:heading out|stepping out|stepping away|off to (?:bed|lunch|"
    r"work|a meeting)|going to (?:grab|get) (?:lunch|coffee|a coffee|a bite|food|dinner)|grabbing "
    r"(?:lunch|coffee|a coffee|a bite|dinner)|back in (?:a (?:bit|sec|minute)|\d+))\b|"
    r"^(?:sorry,? )?(?:I was|the user was) (?:away|afk|busy|out|offline)\b|"
    r"^(?:brb|afk|be right back|gtg|got to go|gotta go|never ?mind|forget it|let's move on|"
    r"moving on)\b|"
    r"^(?:我|用户)?(?:有点事[，,]?)?(?:先)?(?:走了|撤了|下了|忙了|闪了)$|^(?:我|用户)?有点事$|"
    r"^(?:I'm |I am |the user is )?(?:just )?(?:browsing|looking around|asking|wondering|"
    r"on (?:my|the user's) phone|on mobile|on the (?:train|bus|subway|road))\b",
    re.I,
)

#: Kinds a passing remark is read as (never a preference, an allergy, a name ...).
PASSING_KINDS = frozenset({"statement", "state", "event", "about"})

#: A clause that opens with when it happens (周五晚上, 明天, 下周三, 3月5号, 今晚).
TIME_FIRST_RE = re.compile(
    r"^(?:这|下|上|本)?(?:个)?(?:周|星期|礼拜)[一二三四五六日天末]|^(?:今天|明天|后天|今晚|明晚|明早|"
    r"周末|下周|下个?月|月底|年底)|^\d{1,2}月\d{1,2}[号日]|^\d{1,2}[号日]"
)


#: A clause that only announces a change whose new value the next clause gives ("We moved",
#: "My daughter changed schools", "I got rid of the Civic", "Not Berlin anymore").
_ANNOUNCEMENT_RE = re.compile(
    r"^(?:the user(?:'s [\w ]{1,20})?|we|our [\w ]{1,20}|my [\w ]{1,20}|[A-Z][a-z]+)"
    r"(?: has| have| just)? (?:moved|changed [\w ]{1,20}|switched [\w ]{1,20}|got rid of [\w ]{1,30}|"
    r"sold [\w ]{1,30}|left [\w ]{1,30}|(?:has |have )?changed)$|^not [\w ]{1,30}$|"
    r"^(?:用户的?)?[\u4e00-\u9fff]{1,6}(?:搬家|搬|换|改|变|更新)$|"
    r"^(?:用户)?(?:已经)?从[^，,。]{1,10}(?:离职|辞职|毕业|搬走|搬出来|退出|出来)$",
    re.I,
)


def without_announcements(facts: list[Fact]) -> list[Fact]:
    """The facts of one sentence without those that only announce the change a later fact of
    the sentence states (that fact is marked as a correction)."""
    out: list[Fact] = []
    for i, fact in enumerate(facts):
        later = facts[i + 1 :]
        if later and _ANNOUNCEMENT_RE.match(fact.content.strip()):
            nxt = later[0]
            facts[i + 1] = nxt.model_copy(update={"key": {**nxt.key, "correction": True}})
            continue
        out.append(facts[i])
    return out


def source_sentences(content: str, text: str) -> str:
    """The sentences of ``text`` a fact came from: those sharing a keyword term with its
    content (all of ``text`` when none does), so a change word of another sentence of the
    same input does not apply to it."""
    terms = set(tokenize(content))
    sentences = split_sentences(text)
    picked = [s for s in sentences if terms & set(tokenize(s))]
    return " ".join(picked) if picked else text


def names_someone(clause: str) -> bool:
    """True when a clause no pattern read names a person or an organisation and says
    something of them ("老张说周三下雨就改周四", "Priya from Globex called about the invoice")."""
    if is_chinese(clause):
        long_enough = len(clause) >= 6 and not clause.startswith(("不是", "不"))
    else:
        long_enough = len(clause.split()) >= 4 and not re.match(r"(?:not|no)\b", clause, re.I)
    return long_enough and bool(names_in(clause)) and not QUESTION_RE.search(clause)


def adds_detail(new: str, old: str) -> bool:
    """True when ``new`` is ``old`` followed by another clause ("用户喜欢画画，尤其是水彩画"
    after "用户喜欢画画")."""
    a, b = new.strip().rstrip("。."), old.strip().rstrip("。.")
    rest = a[len(b) :] if a.lower().startswith(b.lower()) else ""
    return bool(re.match(r"^[，,;；]\s*\S{2,}", rest))


#: "No pork for me (anymore)", "No more late meetings for me": a standing refusal.
_NO_FOR_ME_RE = re.compile(
    r"^(?:and |but |so )?no (?:more )?(?!problem|worries|way|idea|need|thanks|doubt|rush|pressure)"
    r"(?P<x>[a-z][\w\s'-]{1,30}?) for (?:me|the user)"
    r"(?P<more>,? any ?more)?(?:,? (?:please|thanks|thank you))?$",
    re.I,
)
#: A Chinese object put first and its verb denied, the subject left out: "日语早就不学了",
#: "咖啡我已经不喝了" (topicalised; "牛奶我是不喝的" is read by the patterns).
_ZH_TOPIC_DENIED_RE = re.compile(
    r"^(?P<obj>(?!今天|明天|昨天|现在|最近|晚上|早上|中午|这|那|我|你|他|她|再|已经|早就|从来|根本|一点|"
    r"真的|完全|绝对|永远|也|都|还)[\u4e00-\u9fffA-Za-z]{1,8}?)"
    r"(?:我|用户)?(?:是)?(?:早就|已经|早|从来|一点都|一点也|根本|再也)?(?:不|没)(?:再)?"
    r"(?P<verb>学|吃|喝|用|玩|看|抽|买|做|打|练|听|养|开|骑|坐|上)(?:了|的|啦)?$"
)
#: People and filler words that are no object put first ("老公已经戒了", "女儿特别喜欢", "也喜欢").
_NOT_PEOPLE = (
    r"(?!(?:老公|老婆|媳妇|爱人|女儿|儿子|孩子|小孩|客户|老板|大家|同事|朋友|爸|妈|他们|她们|领导|"
    r"家人|也|都|还))"
)
#: Objects of one character that stand as a word when put first ("烟已经不抽了", "酒不喝了").
_ZH_ONE_CHAR_OBJECTS = frozenset("烟酒茶肉鱼糖辣奶蛋")
#: A habit given up, its object put first: "咖啡早就戒了", "烟我已经戒掉了".
_ZH_TOPIC_QUIT_RE = re.compile(
    rf"^(?P<obj>(?!今天|明天|昨天|现在|最近|这|那|我|你|他|她){_NOT_PEOPLE}[\u4e00-\u9fffA-Za-z]{{1,6}}?)"
    r"(?:我)?(?:早就|已经|早|都|也)*(?:戒了|戒掉了|戒掉|彻底戒了)(?:了|啦)?$"
)
#: A liked object put first, the subject left out: "鱿鱼也超爱", "火锅我最喜欢吃".
_ZH_TOPIC_LIKED_RE = re.compile(
    rf"^(?P<obj>(?!今天|明天|昨天|现在|最近|这|那|我|你|他|她){_NOT_PEOPLE}[\u4e00-\u9fffA-Za-z]{{2,8}}?)"
    r"(?:我)?(?P<also>也|还)?(?:超|很|挺|特别|最|非常|真的)?(?:爱|喜欢)(?P<verb2>吃|喝|看|玩|听)?(?:了|的|啦)?$"
)
#: A switch said with 改 + verb, the subject left out: "现在改学韩语", "改喝茶了".
_ZH_SWITCHED_RE = re.compile(
    r"^(?:我|用户)?(?P<when>现在|如今|目前|最近)?(?:已经)?改(?P<verb>学|吃|喝|用|玩|看|练|听|养|开|骑|坐)"
    r"(?P<obj>[\u4e00-\u9fffA-Za-z0-9]{1,10}?)(?:了|啦)?$"
)


#: A Chinese clause that opens with the speaker's home or a family member, the owner left out.
_FAMILY_FIRST_RE = re.compile(
    r"^(?:家里(?=有|养|住|的)|(?:女儿|儿子|孩子|老婆|老公|媳妇|爱人|妻子|丈夫|爸爸|妈妈|老爸|老妈|"
    r"闺女|小孩|宝宝)(?=今年|现在|在|是|叫|上|读|喜欢|不|对|有|明天|下周|下个月|每))"
)
#: Who one reports to: the manager ("I report to Tom Becker now").
_REPORT_TO_RE = re.compile(
    r"^(?:I|the user) (?:now )?(?:report|reports) (?:directly )?to "
    r"(?P<who>[A-Z][\w.'-]*(?: [A-Z][\w.'-]*)?)(?P<now> now| these days)?[.!]?$"
)


#: "大家都叫他陈总", "everyone calls her Liz": how someone just named is called.
_ZH_CALLED_BY_OTHERS_RE = re.compile(
    r"^(?:大家|别人|我们|同事们?|人们|身边的人|公司里)(?:都|一般|通常|平时)?(?:叫|喊|称呼)"
    r"(?P<who>他|她)(?:为)?(?P<name>(?![别不少去多快早来先再跟给把帮])[^，,。！!？?\s]{1,4})$"
)
_EN_CALLED_BY_OTHERS_RE = re.compile(
    r"^(?i:everyone|everybody|people|we all|we) (?:all |usually |just )?calls? (?P<who>him|her) "
    r"(?P<name>[A-Z][\w'-]*(?: [A-Z][\w'-]*)?)[.!]?$"
)


#: A denial with no object of its own ("再也不喝了", "我也不吃了", "I don't use it anymore",
#: "not anymore"): it only says the fact before it again.
BARE_DENIAL_RE = re.compile(
    r"^(?:我|用户)?(?:再也|已经|也|都|就|早就|从此)?(?:不|没)(?:再|用再)?[\u4e00-\u9fff]?(?:了|啦)?$|"
    r"^(?:I|the user)?\s*(?:don't|do not|won't|will not|no longer|never|not)(?: \w+)?"
    r"(?: (?:it|them|that))?(?: (?:anymore|any more))?$",
    re.I,
)
#: A hedge closing a clause ("…, I guess", "… I think", "… lol"): no part of the fact.
_HEDGE_TAIL_RE = re.compile(
    r"[,\s]+(?:I guess|I think|I suppose|I reckon|I believe|lol|haha|lmao)[.!]*$", re.I
)
#: A connective opening a clause before its subject ("不过我…", "但是我…"): the fact is what
#: follows.
_ZH_CONNECTIVE_RE = re.compile(r"^(?:不过|但是|可是|然而|只是|所以|因此)[，,]?\s*(?=我)")


#: A Chinese topic put first ("游泳这事，我一般每周三晚上去"), the clause after it ending on a
#: bare verb.
_ZH_TOPIC_RE = re.compile(
    r"^(?P<topic>[\u4e00-\u9fffA-Za-z]{1,6}?)(?:这事|这件事|这个事|的话|这块|这方面)[，,]\s*"
    r"(?P<rest>[^，,。！!？?]+?(?:去|来|做|练|学|玩|吃|喝|打|用|看|听))(?:了)?(?P<tail>[，,。！!].*)?$"
)


def topic_restored(sentence: str) -> str:
    """``sentence`` with a topic put first moved back after its verb ("游泳这事，我一般每周三晚上
    去" -> "我一般每周三晚上去游泳"); else ``sentence``."""
    m = _ZH_TOPIC_RE.match(sentence.strip())
    if m is None:
        return sentence
    return m["rest"] + m["topic"] + (m["tail"] or "")


def reworded(clause: str) -> str:
    """``clause`` in the plain first-person form the patterns read, for idioms they do not:
    "No pork for me" -> "I don't want pork"; "日语早就不学了" -> "我不再学日语了"; "现在改学韩语"
    -> "我现在学韩语" (the change itself is read from the sentence); "大家都叫他陈总" -> "他的称呼是
    陈总" (a form of address next to the name, never in its place).
    Else ``clause``."""
    text = _ZH_CONNECTIVE_RE.sub("", clause.strip())  # "不过我已经戒掉奶茶了": 不过 is no fact
    text = _HEDGE_TAIL_RE.sub("", text) or text  # "so pescatarian these days I guess"
    m = _NO_FOR_ME_RE.match(text)
    if m:
        return f"I don't want {m.group('x')}" + (" anymore" if m.group("more") else "")
    m = _ZH_TOPIC_DENIED_RE.match(text)
    if m and (len(m.group("obj")) >= 2 or m.group("obj") in _ZH_ONE_CHAR_OBJECTS):
        # "不再" only when the clause says it stopped
        again = "再" if re.search(r"早就|已经|再|了$|啦$", text) else ""
        return f"我不{again}{m.group('verb')}{m.group('obj')}" + ("了" if again else "")
    m = _ZH_SWITCHED_RE.match(text)
    if m:
        return f"我{m.group('when') or ''}{m.group('verb')}{m.group('obj')}"
    m = _ZH_TOPIC_QUIT_RE.match(text)
    if m and (len(m.group("obj")) >= 2 or m.group("obj") in _ZH_ONE_CHAR_OBJECTS):
        return f"我戒了{m.group('obj')}"  # "咖啡早就戒了": the habit given up, put first
    m = _ZH_TOPIC_LIKED_RE.match(re.sub(r"^(?:另外|还有|对了)[，,]?", "", text))
    if m:  # "另外鱿鱼也超爱": the liked object put first
        return f"我{m.group('also') or ''}喜欢{m.group('verb2') or ''}{m.group('obj')}"
    m = _FAMILY_FIRST_RE.match(text)
    if m:  # "家里养了一只猫" -> "我家养了一只猫"; "女儿今年上三年级" -> "我女儿今年上三年级"
        return ("我家" + text[2:]) if text.startswith("家里") else "我" + text
    m = _REPORT_TO_RE.match(text)
    if m:
        return f"My manager is {m.group('who')}"
    m = _ZH_CALLED_BY_OTHERS_RE.match(text)
    if m:  # "大家都叫他陈总" -> "他的称呼是陈总": how the one just named is addressed
        return f"{m.group('who')}的称呼是{m.group('name')}"
    m = _EN_CALLED_BY_OTHERS_RE.match(text)
    if m:
        return f"{'he' if m.group('who') == 'him' else 'she'} is called {m.group('name')}"
    return text if text != clause.strip() else clause
