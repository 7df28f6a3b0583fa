"""Third-person wording of an English first-person clause (a part of the offline ``rules``
extractor): "I like tea" -> "The user likes tea", "I'm" -> "the user is", verbs agreed with
the third person singular (irregular forms in ``_EN_VERBS``)."""

from __future__ import annotations

import re

__all__ = ["third_person"]


_EN_VERBS = {
    "like": "likes",
    "love": "loves",
    "hate": "hates",
    "prefer": "prefers",
    "enjoy": "enjoys",
    "dislike": "dislikes",
    "have": "has",
    "live": "lives",
    "work": "works",
    "want": "wants",
    "need": "needs",
    "go": "goes",
    "eat": "eats",
    "drink": "drinks",
    "avoid": "avoids",
    "usually": "usually",
    "don't": "doesn't",
    "do": "does",
    "take": "takes",
    "own": "owns",
    "play": "plays",
    "speak": "speaks",
    "study": "studies",
    "teach": "teaches",
    "use": "uses",
    "start": "starts",
    "get": "gets",
    "run": "runs",
    "walk": "walks",
    "cook": "cooks",
}


_NOT_PRESENT_VERB = re.compile(
    r"^(?:is|was|has|had|did|does|will|would|can|could|should|must|might|may|shall|went|met|got|"
    r"made|took|gave|saw|ran|won|lost|left|came|sent|paid|spent|wrote|built|began|flew|drove|ate|"
    r"found|bought|sold|told|said|knew|thought|felt|kept|held|brought|caught|taught|became|quit|"
    r"the|a|an|and|or|but|not|to|in|on|at|of|for|with|from|by|as|too|also|"
    r"\w+ed|\w+ly|\w+s|\w+'\w*|\w*\d\w*)$",
    re.I,
)


def _third_singular(word: str) -> str:
    """``carry`` -> ``carries``, ``teach`` -> ``teaches``; other forms as they are."""
    if not word.isalpha() or not word.islower() or _NOT_PRESENT_VERB.match(word):
        return word
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    if re.search(r"(?:s|sh|ch|x|z|o)$", word):
        return word + "es"
    return word + "s"


#: Stands for "me" / "myself" until the verbs after the subject agree.
_OBJECT = "\x00user\x00"


def third_person(text: str) -> str:
    """First person -> "用户" / "the user" (verb agreement for common English verbs)."""
    if re.search(r"[\u4e00-\u9fff]", text):
        out = re.sub(r"(?:我们|咱们)(?=团队|公司|组|部门|项目|家|学校|班)", "用户的", text)
        out = re.sub(r"(?:我们|咱们)(的)?", lambda m: "用户团队" + (m.group(1) or ""), out)
        out = re.sub(r"我(?!们)", "用户", out)
        return out.rstrip("。.")
    subs = [
        (r"\bI'm\b|\bI am\b", "the user is"),
        (r"\bI've\b", "the user has"),
        (r"\bI'd\b", "the user would"),
        (r"\bI'll\b", "the user will"),
        (r"\bI was\b", "the user was"),
        (r"\bI\b", "the user"),
        (r"\b[Mm]y\b", "the user's"),
        (r"\b[Mm]ine\b", "the user's"),
        (r"\b[Mm]yself\b", _OBJECT),
        (r"\b[Mm]e\b", _OBJECT),
    ]
    out = text
    for pattern, repl in subs:
        out = re.sub(pattern, repl, out)

    def agree(m: re.Match[str]) -> str:
        word = m.group(2)
        return m.group(1) + _EN_VERBS.get(word.lower(), _third_singular(word))

    out = re.sub(
        r"(the user (?:(?:also|really|usually|often|never|always|no longer|still|just|sometimes|"
        r"rarely|now|currently|mostly|finally|actually|already|only|generally|normally) )*)([\w']+)",
        agree,
        out,
    )
    out = out.replace(_OBJECT, "the user")  # an object takes no agreement ("call me before")
    out = out.strip().rstrip(".")
    return out[:1].upper() + out[1:]
