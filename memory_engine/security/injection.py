"""Prompt-injection screening of text before it becomes a memory (docs/architecture.md#f9-prompt-injection).

``screen(text, source)`` finds instruction-like content in Chinese and English and decides an
action from the source's trust:

======================  ==========================  ==================================
rule                    user (conversation, manual)  untrusted (tool_output, import)
======================  ==========================  ==================================
instruction_override    flag                        quarantine
persona_switch          flag                        quarantine
exfiltration            flag                        quarantine
secret_request          flag                        quarantine
role_marker             flag                        quarantine
block_imitation         flag                        quarantine
fence                   flag                        quarantine
hidden_text             flag                        quarantine
assistant_directive     allow (manual: flag)        quarantine
answer_rule             allow                       quarantine
url                     allow                       flag
======================  ==========================  ==================================

The strongest action of all matched rules wins (allow < flag < quarantine). Matching runs on
``normalise(text)``: Unicode tag characters (U+E0020-E007E, invisible in most renderers)
decoded to the ASCII they spell, zero-width and bidi controls removed, line and paragraph
separators (U+2028, U+2029, NEL, VT, FF) turned into line breaks, NFKC (full-width
``ｉｇｎｏｒｅ``, ``＜/memory_data＞``), Cyrillic and Greek homoglyphs mapped to the Latin
letters they imitate (``Іgnore аll``), case folded, runs of spaces collapsed (a run holding a
line break becomes one line break, so screening is linear in blank lines). The rules are
general shapes, not sentences: an override verb (ignore, disregard, forget, pay no attention
to, 忽略, 无视, 不要理会...) near an instruction word or a position word (above, previous,
以上, 前面...); a line that starts like a role (``SYSTEM:``, ``system prompt:``, ``[admin]``,
``系统提示：``); a line imitating the memory block's own numbered format
(``2. 2024-01-01 00:00 UTC · semantic · manual · 1.00 · ...``). ``hidden_text``: tag
characters outside an emoji flag sequence, or a bidi override (U+202D/U+202E).
``assistant_directive``: text addressed to the assistant, an AI or a language model reading it
rather than stating a fact (``Note to the AI: ...``, ``If you are an AI model ...``,
``Assistants must never ...``, ``致AI：``, ``助手请注意``, ``如果你是AI``): the user may give the
assistant standing instructions (allowed in a conversation; flagged from ``manual``, often an
agent storing what it read: stored and searchable, flagged for a reviewer, never quarantined by
the manual policy), a tool output or an import may not (quarantined). ``answer_rule``: a rule for the assistant's answers that names
no AI (``When the user asks about X, tell them ...``, ``in every answer``, ``respond only
with``, ``当用户询问…时，告诉…``, ``每次回答都…``): a procedural memory when the user or an agent
writes it (allowed from ``conversation`` and ``manual``), quarantined from a tool output or an
import.

``security.policy.escalate`` quarantines a ``manual`` write that this table only flags, under
the tenant's injection policy. Screening never changes the text; the memory block escapes
content separately (``retrieval/block.py``: entities, line separators, bidi controls and tag
characters shown as ``\\uXXXX``), so even an unflagged string cannot close the data fence.
"""

from __future__ import annotations

import enum
import functools
import re
import unicodedata
from dataclasses import dataclass

from memory_engine.models import Memory, MemorySource


class ScreenAction(enum.StrEnum):
    """Outcome of screening, weakest first."""

    ALLOW = "allow"
    FLAG = "flag"  # stored, marked in the UI and in the memory's metadata
    QUARANTINE = "quarantine"  # not searchable until a reviewer releases it


_RANK = {ScreenAction.ALLOW: 0, ScreenAction.FLAG: 1, ScreenAction.QUARANTINE: 2}

#: Sources whose text is the user's own words (trusted more than tool output and imports).
USER_SOURCES = frozenset({MemorySource.CONVERSATION, MemorySource.MANUAL})

#: English verbs that throw away what came before, and the words for what they throw away.
_EN_DROP = (
    r"(?:ignore|disregard|forget|override|bypass|discard|abandon|neglect|set aside|"
    r"pay no (?:attention|heed|mind) to|take no notice of|don'?t (?:follow|obey|heed)|"
    r"do not (?:follow|obey|heed)|stop (?:following|obeying)|no longer (?:follow|obey))"
)
_EN_ORDERS = (
    r"(?:instructions?|prompts?|rules?|guidelines?|guidance|directions?|directives?|context|"
    r"messages?|orders?|commands?|constraints?|restrictions?|polic(?:y|ies)|programming|"
    r"safeguards?|guardrails?)"
)
_EN_EVERYTHING = (
    r"(?:everything|anything|all|whatever|what|the (?:text|content|lines?|conversation))"
)
_EN_BEFORE = (
    r"(?:above|before|previous(?:ly)?|prior|earlier|preceding|foregoing|so far|until now|"
    r"up to now|above-mentioned|aforementioned)"
)
_ZH_DROP = r"(?:忽略|无视|不要理会|不理会|别理会|不用理会|不必理会|不要管|别管|不用管|抛开|忽视|漠视|绕过|丢掉|丢弃)"
_ZH_FORGET = r"(?:忘记|忘掉|忘了|忘却|跳过|不要遵守|不再遵守|停止遵守|不要遵循|不再遵循)"
_ZH_ORDERS = r"(?:指令|指示|命令|说明|规则|提示|要求|设定|上下文|限制|约束|规定|守则)"
_ZH_BEFORE = r"(?:以上|上面|上述|前面|之前|先前|此前|上文|前文|刚才|前述)"
_ZH_ALL = r"(?:一切|所有|全部|内容|信息|消息|对话|文字|的话|说的)"

#: Names of the assistant a planted instruction addresses (English; normalised, case-folded).
_EN_AI = (
    r"(?:ai|a\.i\.|artificial intelligence|(?:ai |virtual |digital )?assistants?|chat ?bots?|"
    r"(?:large )?language models?|llms?|ai (?:agents?|models?|systems?)|"
    r"gpt(?:-?\d[\w.]*)?|chatgpt|claude|copilot|gemini)"
)
#: What a directive tells the assistant to do (after a vocative "AI, ...").
_EN_DO = (
    r"(?:always|never|you|do|don'?t|must|please|tell|say|reply|respond|answer|recommend|approve|"
    r"send|delete|transfer|ignore|make sure|remember|include|mention|stop|start|only|refuse)"
)
#: The same names in Chinese (``ai`` not inside a Latin word such as ``email``).
_ZH_AI = (
    r"(?:(?<![a-z])ai(?![a-z])|人工智能|(?:(?<![a-z])ai|智能|人工智能|虚拟|ai智能)?助手|"
    r"(?:(?<![a-z])ai|智能|人工智能|虚拟)助理|"
    r"(?:大|语言|(?<![a-z])ai|人工智能)模型|聊天机器人|智能体|(?<![a-z])(?:chat)?gpt|"
    r"(?<![a-z])claude|(?<![a-z])copilot)"
)
_ZH_REPLY = r"(?:告诉|回答|回复|答复|说|推荐|建议|声称|引导|转告)"

_RULES: dict[str, list[str]] = {
    "instruction_override": [
        rf"\b{_EN_DROP}\b.{{0,60}}\b{_EN_ORDERS}\b",
        rf"\b{_EN_DROP}\s+(?:\w+\s+){{0,2}}?{_EN_EVERYTHING}\b.{{0,40}}\b{_EN_BEFORE}\b",
        rf"\b{_EN_DROP}\s+(?:the\s+|all\s+(?:of\s+)?(?:the\s+)?)?{_EN_BEFORE}\b",
        r"\bnew (?:instructions?|rules?|task)\s*[:：]",
        r"\bdo not (?:tell|inform|let) the user\b",
        rf"{_ZH_DROP}掉?.{{0,12}}(?:{_ZH_BEFORE}|{_ZH_ORDERS})",
        rf"{_ZH_FORGET}.{{0,12}}(?:{_ZH_ORDERS}|{_ZH_BEFORE}的?.{{0,6}}{_ZH_ALL})",
        rf"{_ZH_BEFORE}的?.{{0,12}}(?:{_ZH_ORDERS}|{_ZH_ALL}).{{0,8}}"
        r"(?:忽略|无视|忘记|忘掉|忘了|作废|无效|不算数|不算|不用管|别管|不要管)",
        r"(?:新的|以下是新)(?:指令|指示|任务|规则)",
        r"不要(?:告诉|通知|让)用户",
    ],
    "persona_switch": [
        r"\byou are now\b",
        r"\bfrom now on,? you\b",
        r"\bact as (?:an? )?(?:system|admin|developer|root|dan)\b",
        r"\bpretend (?:to be|you are)\b",
        r"\b(?:developer|god|dan|jailbreak) mode\b",
        r"你现在是",
        r"从现在(?:起|开始)[，,]?你",
        r"扮演(?:系统|管理员|开发者)",
        r"(?:开发者|越狱)模式",
    ],
    "exfiltration": [
        # an order to send, not a report that something was sent ("Email sent to bob@...",
        # "邮件已发送至 ...", "Sent email to bob@...": a tool's status line)
        r"(?<!\bsent )(?<!\bsent an )(?<!\bsent the )"
        r"\b(?:send|post|upload|forward|email|leak|exfiltrate)\b(?!\s+(?:was\s+|has\s+been\s+)?"
        r"(?:sent|delivered|forwarded|posted|uploaded|queued|bounced)\b)"
        r".{0,60}(?:https?://|\bto\s+\S+@)"
        # ... nor a request log or a status line ("POST https://api.x/v1/orders 200 OK",
        # "upload to https://x/a.pdf succeeded"): the address followed by a status
        r"(?![!-~]*\s+(?:http/\d|[1-5]\d\d\b(?!\s*times)|(?:succeeded|completed|failed|ok)"
        r"(?=\s*(?:$|\n|[.;,(]))))",
        r"(?<!已)(?<!已经)(?<!成功)(?<!被)(?:发送|发到|上传|转发|提交)(?!成功|失败|完成)(?:到|给|至)?"
        r".{0,40}(?:https?://|@)(?![!-~]*\s*(?:成功|失败)(?!后|之后|以后|了再|再))",  # "上传到 https://x/a.pdf 成功"
        r"\bcurl\s+(?:-\S+\s+)*https?://",
    ],
    "secret_request": [
        r"\b(?:reveal|print|show|output|send|give me)\b.{0,30}\b(?:api[ _-]?keys?|passwords?"
        r"|secrets?|tokens?|credentials?|system prompt)\b",
        r"(?:泄露|透露|输出|打印|告诉我|发送).{0,12}(?:密钥|密码|令牌|凭证|系统提示|api ?key)",
    ],
    "role_marker": [
        r"(?:^|\n)\s*[\[(<#*>|-]*\s*(?:system|assistant|developer|admin(?:istrator)?|root|"
        r"operator)(?:\s+(?:prompt|message|instructions?|override|note))?\s*[\])>*]*\s*[:：]",
        r"(?:^|\n)\s*\[\s*(?:system|admin|developer|instructions?)\s*\]",
        r"\b(?:new|updated|real|true|hidden|secret|override|overriding)\s+system\s+"
        r"(?:prompt|message|instructions?)\b",
        r"(?:^|\n)\s*#{2,}\s*(?:system|instruction|指令|系统)",
        r"<\|(?:im_start|im_end|system|endoftext)\|>",
        r"\[/?inst\]|<</?sys>>",
        r"(?:^|\n)\s*[\[【(（]*\s*(?:系统|助手|系统提示|系统消息|系统指令|开发者|管理员)\s*[\]】)）]*\s*[:：]",
        r"(?:新的|真正的|隐藏的)?系统提示(?:词)?\s*[:：]",
    ],
    "block_imitation": [
        # a numbered line in the memory block's own format: "N. YYYY-MM-DD HH:MM UTC · type ·"
        r"(?:^|\n|\s)\d{1,3}\s*[.)]\s*\d{4}-\d{2}-\d{2}\s+\d{2}:\d{2}(?:\s*utc)?\s*[·•・|]",
        r"[·•・|]\s*(?:episodic|semantic|procedural)\s*[·•・|]\s*"
        r"(?:conversation|tool_output|manual|import)\s*[·•・|]",
        r"\brecalled memories\b.{0,40}\bmemory_data\b",
    ],
    "fence": [
        r"</?\s*memory_data\s*>",
        r"```",
        r"</?\s*(?:system|instructions?|tool_result|context)\s*>",
    ],
    "assistant_directive": [
        rf"\b(?:note|message|notice|memo|reminder|instructions?|directives?|attention|warning|"
        rf"p\.?s\.?)\s+(?:to|for)\s+(?:the |any |all |every )?{_EN_AI}(?![\w-])",
        rf"\b(?:dear|hey|hello|hi|attention|attn)\b[,:]?\s+(?:the |all |any )?{_EN_AI}(?![\w-])",
        # the AI noun ends the phrase ("if you are an AI, ...", "... an AI model reading
        # this"), not a modifier ("if you are an AI researcher", "an assistant manager")
        rf"\b(?:if|when|whenever|while) you(?:'re| are)\s+(?:an? |the )?(?:\w+ )?{_EN_AI}"
        rf"(?=\s*(?:$|[^\w\s-]|(?:reading|processing|seeing|summari[sz]ing|parsing|and|or|that|"
        rf"who|which|like|then|{_EN_DO})\b))",
        rf"\b(?:any|every|all|the) (?:{_EN_AI}|models?|agents?|bots?) (?:reading|processing|seeing|"
        r"summari[sz]ing|parsing)"
        r" (?:this|these)\b",
        rf"(?:^|[\n.!?;:]\s*)(?:the\s+)?{_EN_AI}\s*[,:]\s*(?:please\s+)?{_EN_DO}\b",
        rf"(?:\b(?:the|all|any|every|this|you,? the) |(?:^|[\n.!?;:]\s*)){_EN_AI} (?:must|should|"
        r"shall|needs? to|has to|have to|(?:is|are) (?:required|instructed|expected|told|supposed) to"
        r"|will (?:always|never)) (?!(?:not |never |always |also )?be\b)",
        rf"(?:致|给|写给|提醒|通知|告知)(?:所有|各位|任何)?{_ZH_AI}(?:们)?(?:的)?"
        r"(?:提示|说明|消息|指令|备注|留言|信息|话)?\s*[:：，,]",
        # (a statement about AI is not an order to it: "大模型总是会出现幻觉", "AI必须受到监管")
        rf"{_ZH_AI}(?:们)?\s*[，,：:]?\s*(?:请注意|注意(?!到)|请(?!假|求|教)|须知|必须|务必|一律|总是|"
        r"永远|始终|不得|禁止)(?!受|被|会|能|可能|可以|是|有|出现|存在)",
        rf"{_ZH_AI}(?:们)?(?:应当|应该|需要|要)(?:始终|总是|永远|一律|只|不要|{_ZH_REPLY})",
        rf"(?:如果|假如|若|要是|倘若)你是(?:一个|一名|个|一款)?{_ZH_AI}",
        rf"(?:阅读|读取|处理|总结|看到)(?:这|此|本)(?:段|条|篇|个|份)?(?:文字|内容|消息|信息|页面|文档)?的{_ZH_AI}",
    ],
    "answer_rule": [
        r"\b(?:when|whenever|if|once)\s+(?:the\s+|a\s+)?(?:user|human)\s+(?:asks?|says?|mentions?"
        r"|requests?|inquires?|queries|wants?|brings? up|types?)\b[^.\n]{0,80}?\b(?:tell|say|answer"
        r"|reply|respond|recommend|inform|suggest|claim|insist)\b",
        r"\b(?:always|never|must|should|make sure to|be sure to)\b[^.\n]{0,60}\b(?:in|to|with|at"
        r" the end of)\s+(?:your|every|each|all|any)\s+(?:future\s+)?(?:answers?|responses?|"
        r"replies|outputs?|completions?)\b",
        r"\b(?:respond|reply|answer)\s+only\s+with\b|\bonly\s+(?:respond|reply|answer)\s+with\b",
        r"(?:当|如果|若|要是|一旦|每当)用户(?:问|询问|问到|问起|提到|提起|说|要求|咨询)[^。！？\n]{0,40}?"
        rf"(?:时|的话)?[，,]?\s*(?:你)?(?:就|请|要|则|务必|一律)?\s*{_ZH_REPLY}",
        # (a report is not a rule: "所有输出都已写入 out.txt", "所有回复都已发送")
        r"(?:每次|所有|任何|每一次|每个)的?(?:回答|回复|答复|输出)(?:中|里|时)?[^。\n]{0,12}"
        r"(?:都|一律|必须|务必)(?!已|被|成功|完成|正常)",
        r"(?:回答|回复|答复)(?:时|中)(?:一律|务必)",
    ],
    "url": [r"https?://\S+", r"\bwww\.\S+\.\S+"],
}

_COMPILED = {
    rule: [re.compile(p, re.IGNORECASE | re.DOTALL) for p in patterns]
    for rule, patterns in _RULES.items()
}
_ZERO_WIDTH = dict.fromkeys(
    map(ord, "\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad\u180e\u034f")
)
#: Bidirectional controls: embeddings, overrides, isolates and the implicit marks.
BIDI_CONTROLS = frozenset(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
)
_BIDI = dict.fromkeys(map(ord, BIDI_CONTROLS))
#: Line and paragraph separators other than ``\n`` (read as line breaks when screening).
_SEPARATORS = {ord(c): "\n" for c in "\u2028\u2029\u0085\x0b\x0c\r"}
_TAG_RUN = re.compile("[\U000e0000-\U000e007f]+")
_FLAG_TAGS = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")

#: Cyrillic, Greek and other letters that imitate Latin ones (Unicode confusables, the
#: subset that passes for ASCII in running text), mapped to the Latin letter.
_CONFUSABLES = str.maketrans(
    {
        # Cyrillic
        "а": "a",
        "в": "b",
        "е": "e",
        "ё": "e",
        "к": "k",
        "м": "m",
        "н": "h",
        "о": "o",
        "р": "p",
        "с": "c",
        "т": "t",
        "у": "y",
        "х": "x",
        "ѕ": "s",
        "і": "i",
        "ї": "i",
        "ј": "j",
        "ԁ": "d",
        "ԛ": "q",
        "ԝ": "w",
        "һ": "h",
        "ɡ": "g",
        "ү": "y",
        "ѵ": "v",
        "А": "A",
        "В": "B",
        "Е": "E",
        "К": "K",
        "М": "M",
        "Н": "H",
        "О": "O",
        "Р": "P",
        "С": "C",
        "Т": "T",
        "Х": "X",
        "У": "Y",
        "Ѕ": "S",
        "І": "I",
        "Ї": "I",
        "Ј": "J",
        "Ԁ": "D",
        "Ԛ": "Q",
        "Ԝ": "W",
        "Һ": "H",
        "Ү": "Y",
        # Greek
        "α": "a",
        "β": "b",
        "ε": "e",
        "ι": "i",
        "κ": "k",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "γ": "y",
        "ω": "w",
        "Α": "A",
        "Β": "B",
        "Ε": "E",
        "Ζ": "Z",
        "Η": "H",
        "Ι": "I",
        "Κ": "K",
        "Μ": "M",
        "Ν": "N",
        "Ο": "O",
        "Ρ": "P",
        "Τ": "T",
        "Υ": "Y",
        "Χ": "X",
        # Latin look-alikes NFKC keeps
        "ı": "i",
        "ȷ": "j",
        "ɑ": "a",
        "ɩ": "i",
        "ʏ": "y",
        "ᴀ": "a",
        "ʀ": "r",
        "ꜱ": "s",
    }
)
_SPACES = re.compile(r"[^\S\n]+")
#: A run of white space holding a line break (blank lines, indentation after a break).
_BREAKS = re.compile(r"\s*\n\s*")


@dataclass(frozen=True)
class Screening:
    """Result of ``screen``: the action, the matched rule ids, and short matched snippets."""

    action: ScreenAction
    rules: tuple[str, ...]
    snippets: tuple[str, ...]

    @property
    def flagged(self) -> bool:
        """True when the action is ``flag`` or ``quarantine``."""
        return self.action is not ScreenAction.ALLOW

    def to_dict(self) -> dict[str, object]:
        """JSON-safe form for metadata and audit events."""
        return {
            "action": self.action.value,
            "rules": list(self.rules),
            "snippets": list(self.snippets),
        }


def decode_tags(text: str) -> str:
    """``text`` with each run of Unicode tag characters replaced by the ASCII it spells,
    set off by spaces (U+E0041 -> ``A``; the cancel tag U+E007F and U+E0001 dropped)."""

    def spell(m: re.Match[str]) -> str:
        return (
            " "
            + "".join(chr(ord(c) - 0xE0000) for c in m.group(0) if 0xE0020 <= ord(c) <= 0xE007E)
            + " "
        )

    return _TAG_RUN.sub(spell, text)


def normalise(text: str) -> str:
    """The form every rule matches against: tag characters decoded, zero-width and bidi
    controls removed, line/paragraph separators as ``\n``, NFKC, confusable letters mapped
    to Latin, case-folded, runs of spaces collapsed to one space and white space around line
    breaks to one line break."""
    text = decode_tags(_FLAG_TAGS.sub("", text))
    text = text.translate(_ZERO_WIDTH).translate(_BIDI).translate(_SEPARATORS)
    text = unicodedata.normalize("NFKC", text).translate(_CONFUSABLES).casefold()
    # Every white-space run becomes one character, so no ``\s*`` of a rule can walk a run of
    # blank lines from each of its breaks (2,000 newlines took minutes to screen).
    return _BREAKS.sub("\n", _SPACES.sub(" ", text))


def hidden_text(text: str) -> str | None:
    """A snippet of text hidden from a reader: the decoded tag characters outside an emoji
    flag sequence, or ``bidi override`` for U+202D/U+202E; None when there is none."""
    outside = _FLAG_TAGS.sub("", text)
    run = _TAG_RUN.search(outside)
    if run is not None:
        return "tag characters:" + decode_tags(run.group(0))[:60]
    if "\u202e" in text or "\u202d" in text:
        return "bidi override"
    return None


def _action(rule: str, trusted: bool, spoken: bool) -> ScreenAction:
    if rule == "answer_rule":
        # A rule for the assistant's answers is how a user or an agent stores a procedural
        # memory ("when the user asks for code, answer in Python"); only untrusted text may not.
        return ScreenAction.ALLOW if trusted else ScreenAction.QUARANTINE
    if rule == "assistant_directive":
        # The user's own words may instruct the assistant; a manual write (often an agent
        # storing what it read) is flagged for a reviewer (policy.NOT_ESCALATED: kept active).
        if spoken:
            return ScreenAction.ALLOW
        return ScreenAction.FLAG if trusted else ScreenAction.QUARANTINE
    if rule == "url":
        return ScreenAction.ALLOW if trusted else ScreenAction.FLAG
    return ScreenAction.FLAG if trusted else ScreenAction.QUARANTINE


def screen(text: str, source: MemorySource | str = MemorySource.TOOL_OUTPUT) -> Screening:
    """Screen ``text`` written from ``source`` (unknown sources count as untrusted).

    Returns:
        Screening with the strongest action over all matched rules (see the module table).
    """
    try:
        trusted = MemorySource(source) in USER_SOURCES
        spoken = MemorySource(source) is MemorySource.CONVERSATION
    except ValueError:
        trusted = spoken = False
    norm = normalise(text)
    rules: list[str] = []
    snippets: list[str] = []
    action = ScreenAction.ALLOW
    found: list[tuple[str, str]] = []
    for rule, patterns in _COMPILED.items():
        for pattern in patterns:
            m = pattern.search(norm)
            if m:
                found.append((rule, m.group(0).strip()[:80]))
                break
    hidden = hidden_text(text)
    if hidden is not None:
        found.append(("hidden_text", hidden))
    for rule, snippet in found:
        rules.append(rule)
        snippets.append(snippet)
        candidate = _action(rule, trusted, spoken)
        if _RANK[candidate] > _RANK[action]:
            action = candidate
    return Screening(action, tuple(rules), tuple(snippets))


@functools.lru_cache(maxsize=4096)
def _screen_cached(content: str, source: str) -> Screening:
    """``screen`` of a stored memory's content (pure, so cached: a search renders the same
    memories again and again)."""
    return screen(content, source)


def memory_flags(memory: Memory) -> tuple[str, ...]:
    """The screening rules a stored memory is flagged for, sorted: those its write recorded
    (``metadata["screening"]["rules"]``) and those its content matches now (``screen`` with
    its source, so memories written before a rule existed are flagged too). ``url`` alone
    from a user source is not a flag. Empty for a clean memory."""
    stored = memory.metadata.get("screening") if isinstance(memory.metadata, dict) else None
    rules = set(stored.get("rules") or ()) if isinstance(stored, dict) else set()
    now = _screen_cached(memory.content, str(memory.source))
    if now.flagged:
        rules.update(now.rules)
    if not now.flagged and rules == {"url"}:
        return ()
    return tuple(sorted(rules))
