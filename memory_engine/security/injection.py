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
fence                   flag                        quarantine
url                     allow                       flag
======================  ==========================  ==================================

The strongest action of all matched rules wins (allow < flag < quarantine). Matching runs on an
NFKC-normalised, case-folded copy with zero-width characters removed, so full-width letters
(``ｉｇｎｏｒｅ``) and ``ig\u200bnore`` are caught too. Screening never changes the text; the
memory block escapes content separately (``retrieval/block.py``), so even an unflagged string
cannot close the data fence.
"""

from __future__ import annotations

import enum
import re
import unicodedata
from dataclasses import dataclass

from memory_engine.models import MemorySource


class ScreenAction(enum.StrEnum):
    """Outcome of screening, weakest first."""

    ALLOW = "allow"
    FLAG = "flag"  # stored, marked in the UI and in the memory's metadata
    QUARANTINE = "quarantine"  # not searchable until a reviewer releases it


_RANK = {ScreenAction.ALLOW: 0, ScreenAction.FLAG: 1, ScreenAction.QUARANTINE: 2}

#: Sources whose text is the user's own words (trusted more than tool output and imports).
USER_SOURCES = frozenset({MemorySource.CONVERSATION, MemorySource.MANUAL})

_RULES: dict[str, list[str]] = {
    "instruction_override": [
        r"\b(?:ignore|disregard|forget|override|bypass)\b.{0,40}\b(?:instructions?|prompts?|rules?"
        r"|guidelines?|directions?|context|messages?)\b",
        r"\bnew (?:instructions?|rules?|task)\s*[:：]",
        r"\bdo not (?:tell|inform|let) the user\b",
        r"(?:忽略|无视|忘记|忘掉|跳过|不要理会|绕过).{0,12}(?:指令|指示|命令|说明|规则|提示|要求|设定|上下文)",
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
        r"\b(?:send|post|upload|forward|email|leak|exfiltrate)\b.{0,60}(?:https?://|\bto\s+\S+@)",
        r"(?:发送|发到|上传|转发|提交)(?:到|给|至)?.{0,40}(?:https?://|@)",
        r"\bcurl\s+(?:-\S+\s+)*https?://",
    ],
    "secret_request": [
        r"\b(?:reveal|print|show|output|send|give me)\b.{0,30}\b(?:api[ _-]?keys?|passwords?"
        r"|secrets?|tokens?|credentials?|system prompt)\b",
        r"(?:泄露|透露|输出|打印|告诉我|发送).{0,12}(?:密钥|密码|令牌|凭证|系统提示|api ?key)",
    ],
    "role_marker": [
        r"(?:^|\n)\s*(?:system|assistant|developer)\s*[:：]",
        r"(?:^|\n)\s*#{2,}\s*(?:system|instruction|指令|系统)",
        r"<\|(?:im_start|im_end|system|endoftext)\|>",
        r"\[/?inst\]|<</?sys>>",
        r"(?:^|\n)\s*(?:系统|助手)\s*[:：]",
    ],
    "fence": [
        r"</?\s*memory_data\s*>",
        r"```",
        r"</?\s*(?:system|instructions?|tool_result|context)\s*>",
    ],
    "url": [r"https?://\S+", r"\bwww\.\S+\.\S+"],
}

_COMPILED = {
    rule: [re.compile(p, re.IGNORECASE | re.DOTALL) for p in patterns]
    for rule, patterns in _RULES.items()
}
_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))


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


def normalise(text: str) -> str:
    """NFKC, zero-width characters removed, case-folded: the form every rule matches against."""
    return unicodedata.normalize("NFKC", text).translate(_ZERO_WIDTH).casefold()


def _action(rule: str, trusted: bool) -> ScreenAction:
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
    except ValueError:
        trusted = False
    norm = normalise(text)
    rules: list[str] = []
    snippets: list[str] = []
    action = ScreenAction.ALLOW
    for rule, patterns in _COMPILED.items():
        for pattern in patterns:
            m = pattern.search(norm)
            if m:
                rules.append(rule)
                snippets.append(m.group(0)[:80])
                candidate = _action(rule, trusted)
                if _RANK[candidate] > _RANK[action]:
                    action = candidate
                break
    return Screening(action, tuple(rules), tuple(snippets))
