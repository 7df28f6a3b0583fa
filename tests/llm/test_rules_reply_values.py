"""A short reply that says a memory again must not lose a value it changes, and a reply about
someone just named must be about them only when it really opens with their name. Each case is
one of a reviewer's attacks on the offline ``rules`` provider: the previous message's fact,
then the reply, through ``RulesLLM.extract`` and ``RulesLLM.judge`` as the engine calls them
(``ExtractInput.context`` and a ``recent`` candidate)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory_engine.llm.base import ExtractInput, JudgeCandidate
from memory_engine.llm.rules import RulesLLM
from memory_engine.llm.rules_continuation import substituted
from memory_engine.llm.rules_fragments import said_again, without_said_before
from memory_engine.llm.rules_referents import named_holder
from memory_engine.llm.rules_similar import content_anchors, contrasted

NOW = datetime(2026, 12, 6, 9, tzinfo=UTC)
LLM = RulesLLM()


def _turns(first: str, reply: str) -> list[tuple[str, list[str]]]:
    """(fact, relations to the first message's facts) of each fact the reply gives."""
    before = LLM.extract(ExtractInput(text=first, observed_at=NOW))[0].facts
    assert before, first
    contents = tuple(f.content for f in before)
    item = ExtractInput(text=reply, observed_at=NOW, context=contents)
    shown = [
        JudgeCandidate(
            index=i,
            content=f.content,
            memory_type="semantic",
            similarity=0.7,
            recent=True,
            key=f.key,
        )
        for i, f in enumerate(before)
    ]
    out = []
    for fact in LLM.extract(item)[0].facts:
        judgement = LLM.judge(fact, shown, item)[0]
        out.append((fact.content, [d.relation for d in judgement.decisions]))
    return out


@pytest.mark.parametrize(
    ("first", "reply"),
    [
        ("My sister Emma lives in Denver", "Again, my sister Emma lives in Boston"),
        ("My daughter Lily is 5", "like I said, my daughter Lily is 6"),
        ("I use VS Code on Mac", "again, VS Code on Linux"),
        ("I went to Tokyo last year", "I'm going to Tokyo again"),
        ("请用简体中文回答", "还是那句话，繁体中文回答就好"),
        ("我每周一三五去健身房", "之前说过，每周二四去健身房"),
        ("我儿子上三年级", "儿子上四年级，之前说过"),
        ("我每天早上七点起床", "早上八点起床，之前说过"),
        ("我喜欢猫头鹰", "我喜欢猫，之前跟你说过"),
        ("My cat Miso is 7", "Miso is 8 like I said"),
        ("My cat Miso is 7", "Miso's eight btw"),
        ("I have a dentist appointment on Tuesday", "reminder: dentist appointment Friday"),
    ],
)
def test_a_changed_value_said_as_a_restatement_is_never_a_duplicate(first: str, reply: str) -> None:
    for content, relations in _turns(first, reply):
        assert "duplicate" not in relations, (content, relations)


@pytest.mark.parametrize(
    ("first", "reply", "value"),
    [
        ("My cat Miso is 7", "Miso is 8 like I said", "8"),
        ("My cat Miso is 7", "Miso's eight btw", "8"),
        ("My daughter Lily is 5", "like I said, my daughter Lily is 6", "6"),
        ("My sister Emma lives in Denver", "Again, my sister Emma lives in Boston", "Boston"),
    ],
)
def test_a_changed_value_replaces_the_old_one(first: str, reply: str, value: str) -> None:
    turns = _turns(first, reply)
    assert any(value in c and "contradicts" in r for c, r in turns), turns
    assert all("like the user said" not in c and "btw" not in c for c, _ in turns)


@pytest.mark.parametrize(
    ("first", "reply"),
    [
        ("I'm vegetarian", "like I said, I'm vegetarian"),
        ("请用简体中文回答", "还是那句话，简体中文回答就好"),
        ("My cat Miso is 7", "Miso's seven btw"),
        ("My birthday is on October 3.", "Oct 3 is my birthday btw, in case I didn't say."),
    ],
)
def test_a_real_restatement_is_a_duplicate(first: str, reply: str) -> None:
    turns = _turns(first, reply)
    assert turns and all(r == ["duplicate"] for _, r in turns), turns


def test_contrasted_values() -> None:
    assert contrasted(
        "The user's sister Emma lives in Boston", "The user's sister Emma lives in Denver"
    )
    assert contrasted("用户每周二四去健身房", "用户每周一三五去健身房")
    assert contrasted("用繁体中文回答", "用简体中文回答")
    assert contrasted("用户喜欢猫", "用户喜欢猫头鹰")
    assert contrasted("favorite color green", "The user's favorite color is blue")
    assert not contrasted("我家在厦门思明那边", "用户住在厦门思明区")  # 思明 is 思明区
    assert not contrasted("家里养了只橘猫", "用户家有只猫")  # 橘猫 is a 猫
    assert not contrasted("回答用简体中文", "回复用户时请用简体中文")
    assert not contrasted("Oct 3 is my birthday", "The user's birthday is on October 3")


def test_said_again_needs_every_value() -> None:
    memory = "The user's sister Emma lives in Denver"
    assert said_again("Again, my sister Emma lives in Boston", [memory]) is None
    assert said_again("Again, my sister Emma lives in Denver", [memory]) == memory
    assert said_again("I'm going to Tokyo again", ["The user is going to Tokyo"]) is None


@pytest.mark.parametrize(
    ("text", "left"),
    [
        ("Miso is 8 like I said", "Miso is 8"),
        ("之前说过，每周二四去健身房", "每周二四去健身房"),
        ("again, VS Code on Linux", "VS Code on Linux"),
        ("我没听说过这个", "我没听说过这个"),  # 听说过 is no "said before"
        ("like I said", "like I said"),  # nothing else: kept
    ],
)
def test_without_said_before(text: str, left: str) -> None:
    assert without_said_before(text) == left


@pytest.mark.parametrize(
    ("memory", "clause", "rewritten"),
    [
        (
            "The user's sister Emma lives in Denver",
            "Emma's birthday is in May",
            "my birthday is in May",
        ),
        ("The user's daughter Lily is 5", "Lily's teacher is Mrs. Chen", "my teacher is Mrs. Chen"),
        ("The user's daughter Lily is 5", "Lily isn't in school yet", "I'm not in school yet"),
        (
            "The user's sister Emma lives in Denver",
            "Emma never drinks coffee",
            "I never drink coffee",
        ),
        ("The user's cat Miso is 7", "Miso's eight btw", "I'm 8"),
    ],
)
def test_named_holder_in_the_first_person(memory: str, clause: str, rewritten: str) -> None:
    found = named_holder([memory], clause)
    assert found is not None and found[0] == rewritten


@pytest.mark.parametrize(
    ("memory", "clause"),
    [
        ("The user's sister Emma lives in Denver", "Emma Stone is my favorite actress"),
        ("The user's coworker Grace handles billing", "Grace period ends Monday"),
        ("The user's cat Miso is 7", "Miso soup is my favorite"),
        ("The user's daughter May is 5", "May is my favorite month"),
        ("The user's son Will plays soccer", "Will you remember that?"),
        ("用户的同事小林负责前端", "小林子是我的小名"),
        ("用户的同事小林负责前端", "小林觉得我应该换工作"),
    ],
)
def test_a_name_opening_another_phrase_is_not_the_holder(memory: str, clause: str) -> None:
    assert named_holder([memory], clause) is None


def test_reported_speech_of_a_colleague_replaces_nothing() -> None:
    turns = _turns("我同事小林负责前端", "小林觉得我应该换工作")
    assert all("contradicts" not in r for _, r in turns), turns


def test_a_remark_with_now_about_a_third_party_keeps_their_other_facts() -> None:
    turns = _turns("My sister Emma lives in Denver", "Emma is 30 now")
    assert turns and all("contradicts" not in r for _, r in turns), turns


def test_called_by_others_is_a_name_only_when_it_is_one() -> None:
    turns = _turns("我每天喝咖啡", "我老板姓陈，大家都叫他别喝酒")
    assert all("叫别喝酒" not in c for c, _ in turns), turns
    facts = [c for c, _ in _turns("我哥哥在上海工作", "大家都叫他阿强")]
    assert facts == ["用户的哥哥的称呼是阿强"]
    facts = [c for c, _ in _turns("I like tea", "Everyone calls him Bobby")]
    assert all(not c.startswith("He ") for c in facts), facts


def test_a_one_character_value_denied_is_corrected() -> None:
    turns = _turns("我喜欢猫", "我喜欢狗，不是猫")
    assert turns == [("用户喜欢狗", ["contradicts"])]


@pytest.mark.parametrize(
    ("previous", "reply", "expected"),
    [
        (
            "The user's rent is $1,200 a month",
            "no wait, it's 900",
            "The user's rent is $900 a month",
        ),
        ("The user has 1 brother", "wait, that's 2", None),  # "2 brother"
        ("The user wakes up at 6:30 and runs 5 km", "no wait, it's 7", None),  # 7 o'clock or 7 km
        ("The user's cat Miso is 7", "no wait, it's eight", "The user's cat Miso is 8"),
        (
            "The user's commute is 30 minutes",
            "sorry, make it 45",
            "The user's commute is 45 minutes",
        ),
    ],
)
def test_a_number_said_again(previous: str, reply: str, expected: str | None) -> None:
    assert substituted(previous, reply) == expected


def test_number_words_stem_like_the_tokenizer() -> None:
    assert "12" in content_anchors("Miso is twelve")


@pytest.mark.parametrize(
    ("first", "reply"),
    [
        ("我老婆是老师", "之前说过，我老婆是医生"),
        ("我女儿叫小美", "之前说过，我女儿叫小丽"),
        ("My wife Sarah is a teacher", "like I said, Sarah is a nurse"),
        ("I go to the gym on weekends", "as I said, I go to the gym on weekdays"),
        ("我周末去健身房", "还是那句话，我工作日去健身房"),
        ("我养了一只猫", "提醒一下，我养了一只狗"),
        ("I use Python at work", "like I said, I use Go at work"),
        ("我用苹果手机", "之前说过，我用华为手机"),
        ("I have a meeting Monday at 3pm", "reminder: meeting Monday at 4pm"),
        ("My son is in 3rd grade", "as I mentioned, my son is in 4th grade"),
        ("我每天跑五公里", "之前说过，我每天跑十公里"),
    ],
)
def test_like_i_said_with_another_value_is_no_duplicate(first: str, reply: str) -> None:
    turns = _turns(first, reply)
    assert turns, reply
    for content, relations in turns:
        assert "duplicate" not in relations, (content, relations)


@pytest.mark.parametrize(
    ("first", "reply"),
    [
        ("My daughter Lily is 5", "Lily's 6 now"),
        ("My sister Emma is a teacher", "Emma is a nurse now"),
        ("My sister Emma lives in Denver", "Emma recently moved to Austin"),
        ("I live in Denver", "I recently moved to Austin"),
        ("我住在上海", "我最近搬到了深圳"),
    ],
)
def test_a_change_of_a_named_person_or_a_recent_move_replaces(first: str, reply: str) -> None:
    turns = _turns(first, reply)
    assert any("contradicts" in r for _, r in turns), turns


@pytest.mark.parametrize("reply", ["Lily's brother is 8", "Lily's friend Amy is 6"])
def test_someone_of_the_named_holder_is_not_the_holder(reply: str) -> None:
    turns = _turns("My daughter Lily is 5", reply)
    assert all("contradicts" not in r for _, r in turns), turns


def test_a_pronoun_two_people_fit_names_nobody() -> None:
    turns = _turns("我老板姓陈，我同事叫小李", "大家都叫他陈总")
    assert all("contradicts" not in r for _, r in turns), turns
    assert all("同事" not in c for c, _ in turns), turns


def test_a_nickname_is_next_to_the_name() -> None:
    turns = _turns("我同事叫小李", "大家都叫她小李子")
    assert turns and all("contradicts" not in r for _, r in turns), turns


@pytest.mark.parametrize(
    ("first", "reply"),
    [
        ("My rent is $1,200 and my car payment is $400", "no wait, it's 1,500"),
        ("My son is 12 and my daughter is 9", "no wait, it's 10"),
    ],
)
def test_a_number_either_memory_may_hold_changes_none(first: str, reply: str) -> None:
    turns = _turns(first, reply)
    assert all("contradicts" not in r for _, r in turns), turns


@pytest.mark.parametrize(
    ("first", "reply", "value"),
    [
        ("我每月房租3000", "其实是3500", "3500"),
        ("My rent is $1,200 a month", "no wait, it's $900", "$900"),
    ],
)
def test_a_number_correction_in_either_language(first: str, reply: str, value: str) -> None:
    turns = _turns(first, reply)
    assert any(value in c and "contradicts" in r for c, r in turns), turns


@pytest.mark.parametrize(
    ("first", "reply"),
    [("我在学日语", "老师是日本人"), ("我养了一只猫", "品种是布偶")],
)
def test_a_detail_supplements_the_previous_fact(first: str, reply: str) -> None:
    turns = _turns(first, reply)
    assert turns and all(r == ["supplements"] for _, r in turns), turns


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("不过我已经戒掉奶茶了，再也不喝了", ["用户戒掉奶茶，再也不喝"]),
        ("update: cancelled Spotify, I don't use it anymore", None),
        ("doing a caffeine detox until Friday for a sleep study", None),
    ],
)
def test_replies_without_a_subject(text: str, expected: list[str] | None) -> None:
    facts = LLM.extract(ExtractInput(text=text, observed_at=NOW))[0].facts
    assert facts, text
    contents = [f.content for f in facts]
    if expected is not None:
        assert contents == expected
    assert all(not c.startswith(("不过", "Update")) and "再也不喝再也" not in c for c in contents)
    assert all(" it anymore" not in c or c.startswith("The user cancelled") for c in contents)


@pytest.mark.parametrize(
    ("text", "until"),
    [
        # observed on Sunday 2026-12-06 (UTC): the next Friday ends at midnight 12-12
        (
            "doing a caffeine detox until Friday for a sleep study",
            datetime(2026, 12, 12, tzinfo=UTC),
        ),
        ("I'm staying with my parents until tomorrow", datetime(2026, 12, 8, tzinfo=UTC)),
    ],
)
def test_a_temporary_state_ends_on_the_day_it_names(text: str, until: datetime) -> None:
    facts = LLM.extract(ExtractInput(text=text, observed_at=NOW))[0].facts
    assert [f.valid_until for f in facts] == [until]


def test_until_date_of_a_bare_weekday() -> None:
    from zoneinfo import ZoneInfo

    from memory_engine.llm.timeresolve import until_date

    tz = ZoneInfo("Asia/Shanghai")
    sunday_noon = datetime(2026, 12, 6, 4, tzinfo=UTC)  # 12:00 in Shanghai
    friday_end = datetime(2026, 12, 12, tzinfo=tz).astimezone(UTC)
    assert until_date("until Friday", [], sunday_noon, tz) == friday_end
    assert until_date("直到周五", [], sunday_noon, tz) == friday_end
    assert until_date("until Sunday", [], sunday_noon, tz) == datetime(
        2026, 12, 7, tzinfo=tz
    ).astimezone(UTC)
    assert until_date("every Friday", [], sunday_noon, tz) is None


@pytest.mark.parametrize(
    ("first", "reply", "expected"),
    [
        ("以后周四汇报", "改成周五了", "用户以后周五汇报"),
        ("游泳这事，我一般每周三晚上去", "现在改成周六早上了", "用户通常每周六早上去游泳"),
        ("I have yoga on Tuesday evenings", "it's on Thursday evenings now", None),
    ],
)
def test_a_changed_time_replaces_the_one_the_memory_holds(
    first: str, reply: str, expected: str | None
) -> None:
    turns = _turns(first, reply)
    assert len(turns) == 1 and turns[0][1] == ["contradicts"], turns
    if expected is not None:
        assert turns[0][0] == expected


def test_a_topic_put_first_is_the_object() -> None:
    facts = LLM.extract(ExtractInput(text="游泳这事，我一般每周三晚上去", observed_at=NOW))[0].facts
    assert [f.content for f in facts] == ["用户通常每周三晚上去游泳"]


def test_what_one_stopped_without_a_subject() -> None:
    turns = _turns("我有高血压，在吃降压药", "医生说血压控制住了，现在不用再吃降压药了")
    assert turns == [("用户现在不用再吃降压药", ["contradicts"])]
    assert not LLM.extract(ExtractInput(text="不用再去了", observed_at=NOW))[0].facts
