"""Phrasings the offline extractor reads (no database): what one is doing this minute and
one-off tasks are not remembered; idioms of refusal, topicalised denials, bare corrections,
subjectless amounts and announced moves become the fact they state; a Chinese organisation is
named by its short form too."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory_engine.entities import mentioned_entities
from memory_engine.llm.base import ExtractInput, JudgeCandidate
from memory_engine.llm.rules import RulesLLM
from memory_engine.llm.rules_names import chinese_names
from memory_engine.llm.schemas import Fact

OBSERVED = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)  # a Tuesday
LLM = RulesLLM()


def facts(text: str) -> list[Fact]:
    extraction, _ = LLM.extract(ExtractInput(text=text, observed_at=OBSERVED))
    return list(extraction.facts)


def judge(new: str, old: str) -> str:
    """The relation the judge finds between the fact of ``new`` and the stored ``old``."""
    (stored,) = facts(old)
    fact = facts(new)[-1]
    cand = JudgeCandidate(index=0, content=stored.content, memory_type="semantic", key=stored.key)
    judgement, _ = LLM.judge(fact, [cand], ExtractInput(text=new, observed_at=OBSERVED))
    return judgement.decisions[0].relation if judgement.decisions else "unrelated"


@pytest.mark.parametrize(
    "text",
    [
        "我先去吃个饭，待会聊",
        "我刚下班，累死了",
        "我在地铁上，信号不太好",
        "I'm heading out for lunch, back in 30.",
        "Sorry, I was away for a bit.",
        "帮我把这段话翻译成英文：明天的会取消了",
        "把这个表格整理一下发我",
        "查一下我明天的航班",
        "Rewrite this paragraph to sound more formal.",
        "Explain recursion like I'm five.",
        "No problem for me",
    ],
)
def test_the_moment_and_one_off_tasks_are_not_remembered(text: str) -> None:
    extraction, _ = LLM.extract(ExtractInput(text=text, observed_at=OBSERVED))
    assert not extraction.should_remember, extraction.facts
    assert extraction.reason


def test_refusals_and_topicalised_denials_are_negative_facts() -> None:
    (pork,) = facts("No pork for me, please.")
    assert "pork" in pork.content and pork.key["polarity"] == -1
    (coffee,) = facts("咖啡我已经不喝了")
    assert coffee.content == "用户不再喝咖啡" and coffee.key["polarity"] == -1
    japanese, korean = facts("日语早就不学了，现在改学韩语")
    assert japanese.key["polarity"] == -1 and "日语" in japanese.content
    assert korean.content == "用户现在学韩语" and korean.key["polarity"] == 1
    # a clause that only points back ("I've cut it out") is no fact of its own
    (only,) = facts("No pork for me anymore, I've cut it out.")
    assert only.key["subject"] == "pork"


def test_bare_corrections_name_the_plan_and_its_new_time() -> None:
    (dentist,) = facts("I meant Thursday, not Tuesday, for the dentist.")
    assert dentist.content == "The user's dentist is now on thursday"
    assert dentist.key["correction"] and dentist.memory_type == "episodic"
    (bare,) = facts("不对，是周四下午")
    assert bare.key["kind"] == "schedule" and bare.key["correction"]
    assert facts("Friday") == []
    assert (
        judge(
            "I meant Thursday, not Tuesday, for the dentist.",
            "My dentist appointment is on Tuesday at 3pm.",
        )
        == "contradicts"
    )


def test_an_announced_move_is_read_with_its_new_time() -> None:
    (moved,) = facts("体检改期了，改到下周五")
    assert moved.content == "用户的体检改为周五" and moved.memory_type == "episodic"
    assert judge("体检改期了，改到下周五", "下周三去医院体检") == "contradicts"
    (review,) = facts("The review got rescheduled, it's now on Friday.")
    assert review.key["subject"] == "review" and review.key["value"] == "friday"
    # "We moved, my office is ..." is no moved plan
    assert "we moved" not in " ".join(
        f.content.lower() for f in facts("We moved, my office is on the 7th floor now.")
    )


def test_amounts_in_chinese_numerals_and_subjectless_updates() -> None:
    (budget,) = facts("我这次装修的预算是五万")
    assert budget.key["kind"] == "amount" and budget.key["value"] == "五万"
    assert judge("预算提高到八万了", "我这次装修的预算是五万") == "contradicts"
    assert (
        judge("Budget's up to $2,000 now.", "My budget for the new laptop is $1,500.")
        == "contradicts"
    )


def test_a_denied_value_and_its_replacement_are_one_correction() -> None:
    (fact,) = facts("我已经不住海淀了，搬去通州了")
    assert fact.key["kind"] == "residence" and fact.key["value"] == "通州"
    assert fact.key["correction"]
    assert judge("我已经不住海淀了，搬去通州了", "我住在海淀") == "contradicts"


def test_chinese_organisations_named_by_their_people_and_suffix() -> None:
    assert chinese_names("阿里巴巴的HR今天给我打电话了") == ["阿里巴巴"]
    assert chinese_names("腾讯那边2026-03-10回复了合作邮件") == ["腾讯"]
    # "派人来公司" is no company name
    assert chinese_names("腾讯公司下周派人来公司交流") == ["腾讯公司"]
    (dated,) = facts("阿里巴巴的HR今天给我打电话了")
    assert dated.memory_type == "episodic" and "阿里巴巴" in dated.entities


def test_a_known_organisation_is_found_by_its_short_form() -> None:
    known = [("阿里巴巴", "阿里巴巴"), ("中国银行", "中国银行"), ("字节跳动", "字节跳动")]
    assert mentioned_entities("阿里那边说下周给用户发offer", known) == ["阿里巴巴"]
    assert mentioned_entities("字节的人下午来", known) == ["字节跳动"]
    assert mentioned_entities("中国那边的同事", known) == []  # a place, not the bank
    assert mentioned_entities("用户去了阿里云", known) == []  # no organisation cue


def test_a_new_job_a_new_number_and_a_move_from_one_day_to_another() -> None:
    (job,) = facts("我换工作了，现在在京东")
    assert job.key["kind"] == "workplace" and job.key["value"] == "京东"
    assert judge("I changed jobs, I'm at Initech now.", "I work at Globex.") == "contradicts"
    (number,) = facts("My new number is 555-0199.")
    assert number.key["subject"] == "number" and number.key["correction"]
    assert judge("My new number is 555-0199.", "My phone number is 555-0100.") == "contradicts"
    assert judge("我的新手机号是13900001111", "我的手机号是13800001111") == "contradicts"
    (dinner,) = facts("The dinner was moved from Friday to Saturday.")
    assert dinner.key["subject"] == "dinner" and dinner.key["value"] == "saturday"
    assert "Friday" not in dinner.entities  # a weekday is no entity
    assert judge("周会从周一改到了周三", "周一上午开周会") == "contradicts"


def test_named_people_hold_their_own_facts_and_adverbs_keep_the_verb() -> None:
    (move,) = facts("老王搬到北京了")
    assert move.content == "老王搬到北京" and move.key["holder"] == "老王"
    (lives,) = facts("张伟现在住在北京")
    assert lives.content == "张伟现在住在北京" and lives.key["holder"] == "张伟"
    assert facts("周会定在周一上午十点")[0].key["holder"] == "user"  # 周 is no surname here
    (anna,) = facts("Anna moved to Berlin.")
    assert anna.key["holder"] == "anna" and anna.key["kind"] == "residence"
    (mother,) = facts("我妈妈其实住在北京")
    assert mother.key["holder"] == "用户的妈妈"
    assert facts("I now like Word files")[0].content == "The user now likes Word files"
    assert facts("My sister now lives in Berlin")[0].content == (
        "The user's sister now lives in Berlin"
    )


@pytest.mark.parametrize(
    "text",
    [
        "我有点事，先走了",
        "我们继续吧",
        "Interesting, I didn't know that.",
        "Never mind.",
        "I'm just browsing.",
        "I'm on my phone right now.",
    ],
)
def test_more_small_talk_is_not_remembered(text: str) -> None:
    assert facts(text) == []


def test_an_object_me_takes_no_agreement() -> None:
    (never,) = facts("Never call me before 9am.")
    assert never.content == "Never call the user before 9am"


def test_an_attribute_of_a_relative_is_not_taken_into_the_holder() -> None:
    (birthday,) = facts("我老婆的生日是5月3日")
    assert birthday.key["holder"] == "用户的老婆" and birthday.key["kind"] == "attr"


def test_a_changed_value_is_not_read_as_a_moved_plan() -> None:
    (email,) = facts("My email changed, it's now sam@new.io")
    assert email.content == "The user's email is sam@new.io" and email.key["kind"] == "attr"


@pytest.mark.parametrize(
    "text",
    [
        "谢谢，今天就到这吧",
        "好的，先这样",
        "那就到这里吧，回头聊",
        "OK that's all for today, thanks!",
    ],
)
def test_closing_a_session_is_small_talk(text: str) -> None:
    """ "今天就到这" names a day but no event: nothing is remembered."""
    result = RulesLLM().extract(
        ExtractInput(text=text, observed_at=datetime(2026, 3, 10, 9, tzinfo=UTC))
    )[0]
    assert not result.facts


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("部署前一定要先跑一遍回归测试", "部署前一定要先跑一遍回归测试"),
        ("上线之前务必通知运维", "上线之前务必通知运维"),
        (
            'When I say "the repo", I mean github.com/acme/shop.',
            'When the user says "the repo", the user means github.com/acme/shop',
        ),
        (
            "Whenever I ask for a summary, keep it under five bullet points.",
            "Whenever the user asks for a summary, keep it under five bullet points",
        ),
    ],
)
def test_a_standing_rule_is_one_procedural_fact(text: str, content: str) -> None:
    """A rule said without a subject (…前一定要…) and a condition with its main clause."""
    facts = (
        RulesLLM()
        .extract(ExtractInput(text=text, observed_at=datetime(2026, 3, 10, 9, tzinfo=UTC)))[0]
        .facts
    )
    assert [(f.content, f.memory_type.value) for f in facts] == [(content, "procedural")]


def test_a_time_before_the_subject_names_the_user_once() -> None:
    """ "下周我请假": the user is named once, after the time is resolved."""
    (fact,) = (
        RulesLLM()
        .extract(ExtractInput(text="下周我请假", observed_at=datetime(2026, 3, 10, 9, tzinfo=UTC)))[
            0
        ]
        .facts
    )
    assert fact.content == "用户2026-03-16那周请假"


@pytest.mark.parametrize(
    ("text", "contents"),
    [
        (
            "I'm vegetarian and allergic to nuts.",
            ["The user is vegetarian", "The user is allergic to nuts"],
        ),
        (
            "I'm from Spain and based in Berlin",
            ["The user is from Spain", "The user is based in Berlin"],
        ),
        ("I'm tired and hungry", ["The user is tired and hungry"]),
    ],
)
def test_two_states_of_the_user_are_two_facts(text: str, contents: list[str]) -> None:
    facts = (
        RulesLLM()
        .extract(ExtractInput(text=text, observed_at=datetime(2026, 3, 10, 9, tzinfo=UTC)))[0]
        .facts
    )
    assert [f.content for f in facts] == contents
