"""1,000 English and Chinese test sentences, generated deterministically.

Kinds, as users write memories: short facts, preferences, dialogue turns, mixed Chinese and
English (product names inside Chinese text), numbers and dates, punctuation and emoji, accented
words, and a few texts longer than the model's 256 word pieces (cut off by both runtimes).
"""

from __future__ import annotations

import random

__all__ = ["english_and_chinese_sentences"]

_EN_SUBJECTS = [
    "My sister",
    "The project lead",
    "Caroline",
    "Our team",
    "The new intern",
    "Grandpa",
    "The customer in Berlin",
    "I",
    "My neighbour's cat",
    "The on-call engineer",
]
_EN_VERBS = [
    "prefers",
    "moved to",
    "is allergic to",
    "started learning",
    "forgot about",
    "booked",
    "can't stand",
    "recommended",
    "migrated the database to",
    "painted",
]
_EN_OBJECTS = [
    "peanuts",
    "Lisbon last week",
    "the bge-reranker model",
    "jazz piano",
    "a flight on 12 May",
    "spicy food",
    "PostgreSQL 16",
    "a watercolour of the lake",
    "the Q3 roadmap",
    "café au lait",
]
_EN_TAILS = [
    "",
    " yesterday.",
    " because it was cheaper.",
    " — again!",
    " (see ticket #4521).",
    " and said it felt great 😀",
    " at 09:30 UTC+9.",
    "?",
    " after the LGBTQ support group.",
    " in naïve résumé style.",
]
_ZH_SUBJECTS = [
    "我",
    "我妈妈",
    "小王",
    "我们团队",
    "项目经理",
    "Bart",
    "李老师",
    "客户",
    "同事",
    "奶奶",
]
_ZH_VERBS = [
    "喜欢",
    "对",
    "上周去了",
    "正在学习",
    "不能吃",
    "推荐了",
    "配置了",
    "忘记了",
    "预订了",
    "讨厌",
]
_ZH_OBJECTS = [
    "花生过敏",
    "里斯本",
    "rerank 精排模型 bge-reranker",
    "爵士钢琴",
    "5月12日的航班",
    "辣的食物",
    "PostgreSQL 数据库",
    "湖边的水彩画",
    "第三季度路线图",
    "芒果口味的冰淇淋",
]
_ZH_TAILS = [
    "",
    "。",
    "，感觉非常开心。",
    "！",
    "（见工单 #4521）",
    "，因为更便宜。",
    "😀",
    "吗？",
    "，明天再说。",
    "。",
]


def _english(rng: random.Random) -> str:
    return (
        f"{rng.choice(_EN_SUBJECTS)} {rng.choice(_EN_VERBS)} {rng.choice(_EN_OBJECTS)}"
        f"{rng.choice(_EN_TAILS)}"
    )


def _chinese(rng: random.Random) -> str:
    return (
        f"{rng.choice(_ZH_SUBJECTS)}{rng.choice(_ZH_VERBS)}{rng.choice(_ZH_OBJECTS)}"
        f"{rng.choice(_ZH_TAILS)}"
    )


def english_and_chinese_sentences(n: int = 1000, *, seed: int = 18) -> list[str]:
    """``n`` sentences (>= 10): half English, half Chinese, some joined into long texts.

    Every 25th item is a multi-sentence text (2-40 sentences, so some exceed 256 word
    pieces); the first items are edge cases (a single word, whitespace around a text, one
    emoji, a single CJK character).
    """
    rng = random.Random(seed)
    out = ["hello", "  leading and trailing spaces  ", "😀", "好", "A", "我对花生过敏"]
    while len(out) < n:
        make = _english if len(out) % 2 else _chinese
        if len(out) % 25 == 0:
            out.append(" ".join(make(rng) for _ in range(rng.randint(2, 40))))
        else:
            out.append(make(rng))
    return out[:n]
