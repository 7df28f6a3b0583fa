"""The keyword leg's stopwords: the one list used on the index side and the query side.

:func:`memory_engine.text.tokenize` drops these terms both from the terms stored with a memory
and from the terms of a search, so a question word never matches a memory on its own:
"我对什么过敏？" queries only 过敏, and "When did I move?" only ``move``. A query made only of
stopwords ("的", "the", "什么？") keeps them (``tokenize`` returns the unfiltered terms then).

Two lists, both compared after NFKC normalisation and lowercasing, before stemming:

* :data:`EN_STOPWORDS`: Snowball's English stopword list
  (snowballstem.org/algorithms/english/stop.txt) plus the apostrophe-less spellings of its
  contractions that are not also ordinary words, and ``whose``.
* :data:`ZH_STOPWORDS`: Chinese question words (什么, 怎么, 哪里, 谁, 多少, 时候, ...), sentence
  particles (吗, 呢, 吧, 啊, ...), pronouns, copulas, prepositions, conjunctions and modal verbs
  (的, 了, 是, 我, 你, 在, 和, 因为, 可以, ...): the Chinese counterparts of the English list.
  They are matched against jieba's search-mode terms, so 什么时候 (a dictionary word) is listed
  together with its parts 什么 and 时候. Besides the list, an interrogative compound is a
  stopword (:func:`is_zh_stopword`): a term with 几 (几年级, 几点, 几岁, 第几, 好几次; not the
  words 几乎, 几何, 几率, 茶几) or opening with 哪 (哪天, 哪家, 哪几个), so "儿子几年级" queries
  儿子 and 年级, the grade a memory "儿子上四年级" holds.

Stores written before a word joined the list still hold it as a term of old memories. That is
harmless, so no re-index is needed: a query never sends a stopword (unless it has nothing
else), so the old term is never matched; it only counts in that memory's BM25 length, as it did
when it was written.
"""

from __future__ import annotations

__all__ = ["EN_STOPWORDS", "ZH_STOPWORDS", "is_stopword", "is_zh_stopword"]

EN_STOPWORDS: frozenset[str] = frozenset(
    """
    i me my myself we our ours ourselves you your yours yourself yourselves he him his himself
    she her hers herself it its itself they them their theirs themselves what which who whom
    whose this that these those am is are was were be been being have has had having do does
    did doing would should could ought i'm you're he's she's it's we're they're i've you've
    we've they've i'd you'd he'd she'd we'd they'd i'll you'll he'll she'll we'll they'll isn't
    aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't won't wouldn't shan't
    shouldn't can't cannot couldn't mustn't let's that's who's what's here's there's when's
    where's why's how's a an the and but if or because as until while of at by for with about
    against between into through during before after above below to from up down in out on
    off over under again further then once here there when where why how all any both each
    few more most other some such no nor not only own same so than too very s t can will just
    don should now im youre theyre ive youve weve theyve youd theyd youll theyll isnt arent
    wasnt werent hasnt havent hadnt doesnt dont didnt wouldnt shouldnt couldnt mustnt thats
    whats
    """.split()
)
"""English function words (question words, pronouns, auxiliaries, prepositions, ...)."""

ZH_STOPWORDS: frozenset[str] = frozenset(
    """
    什么 什么样 什么时候 为什么 为何 怎么 怎样 怎么样 怎么办 如何 哪 哪里 哪儿 哪个 哪些 哪位
    谁 多少 几 几时 何时 何 啥 咋 时候 请问 多久 多长 多远 多长时间
    吗 呢 吧 啊 呀 哦 嗯 么 嘛 啦 呗 哈 哇 喔 噢 唉 诶
    的 了 着 过 地 得 之 所 等 个
    是 在 有 没有 和 与 及 或 或者 也 都 就 又 还 很 把 被 对 从 向 给 于 以 为 而 且 但 并 则 其
    因为 所以 如果 但是 然后 还是 而且 不过 就是 只是 虽然 可是 那么 这么 这样 那样
    这 那 这个 那个 这些 那些 这里 那里 这儿 那儿 一个 一些 一下
    我 你 您 他 她 它 我们 你们 他们 她们 它们 咱 咱们 自己
    可以 能 会
    """.split()
)
"""Chinese function words: question words, particles, pronouns, copulas, prepositions,
conjunctions and modal verbs."""


#: Words with 几 that are not "how many": 几乎 (almost), 几何 (geometry), 几率 (odds), 茶几.
_JI_WORDS = ("几乎", "几何", "几率", "茶几")


def is_zh_stopword(term: str) -> bool:
    """Whether a Han term (a jieba search-mode term) is a Chinese stopword: listed in
    :data:`ZH_STOPWORDS`, or an interrogative compound (a 几 not of 几乎/几何/几率/茶几, or
    an opening 哪)."""
    if term in ZH_STOPWORDS or term.startswith("哪"):
        return True
    return "几" in term and not any(word in term for word in _JI_WORDS)


def is_stopword(term: str) -> bool:
    """Whether ``term`` (lowercase, NFKC-normalised, not yet stemmed) is a stopword.

    Args:
        term: one raw term of the tokenizer (an English word or a jieba term).

    Returns:
        True if the term is in :data:`EN_STOPWORDS` or is a Chinese stopword
        (:func:`is_zh_stopword`).
    """
    return term in EN_STOPWORDS or is_zh_stopword(term)
