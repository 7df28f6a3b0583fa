"""The rules judge on value slots: a count, a time of day or weekday, an attribute under another
name, a diet against what is eaten, and a change word that acts on another object."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory_engine.embedding.usem3 import UseM3Embedder
from memory_engine.llm.base import ExtractInput
from memory_engine.llm.rules import RulesLLM
from memory_engine.llm.rules_slots import canonical_attribute, strip_count, time_slot_change
from tests.llm.test_rules_similar import _relations

NOW = datetime(2026, 3, 10, 9, tzinfo=UTC)


@pytest.fixture(scope="module")
def embedder() -> UseM3Embedder:
    return UseM3Embedder()


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # another count of the same possession
        ("我有两只猫", "我现在有三只猫"),
        ("我养了一条狗", "我现在养了两条狗"),
        ("I have two dogs", "I have three dogs now"),
        # the same activity at another time of day, weekday or hour
        ("我每天早上跑步", "我每天晚上跑步"),
        ("I run every morning", "I run every evening"),
        ("I swim on Tuesdays", "I swim on Thursdays"),
        ("我每周一去健身房", "我每周三去健身房"),
        ("我一般早上7点起床", "我一般早上6点起床"),
        # one attribute under another name
        ("我的电话是13800001111", "我的新号码是13900002222"),
        ("My phone number is 13800001111", "My new mobile number is 13900002222"),
        ("我的邮箱是a@b.com", "我的新邮箱是c@d.com"),
        # a meat-free diet and eating meat
        ("I'm vegetarian", "I eat meat now"),
        ("I'm vegan", "I eat chicken again"),
        ("我是素食者", "我现在吃肉了"),
        ("我吃素", "我现在吃牛肉了"),
        # a denied liking asserted again, with or without its verb
        ("I don't eat pork", "I eat pork now"),
        ("I don't drink coffee", "I drink coffee now"),
        ("我不吃辣", "我现在吃辣了"),
        # the same trip by other means
        ("我每天开车上班", "我现在坐地铁上班了"),
        ("I drive to work", "I take the train to work now"),
        # a new employer joined
        ("我在阿里巴巴工作", "我上个月跳槽去了字节跳动"),
        ("I work at Amazon", "I joined Microsoft last month"),
        # a switch to another one, without a shared word
        ("我喜欢喝美式咖啡", "我现在改喝拿铁了"),
        ("I prefer tea", "I've switched to coffee"),
        ("我用的是安卓手机", "我换了iPhone"),
        ("I'm a teacher", "I quit teaching and became a nurse"),
        # another name for the same relation, and a relation's fact after a discourse word
        ("My manager is Tom", "My new manager is Priya"),
        ("我的老板叫李强", "我现在的老板是王敏"),
        ("My sister lives in Boston", "Actually my sister lives in Chicago"),
        # when a habit was given up is no part of the habit
        ("I smoke", "I quit smoking two months ago"),
        ("I drink soda every day", "I stopped drinking soda a few weeks ago"),
        # a plan called off without a subject; a name corrected with "不叫…"
        ("我下周三去体检", "体检取消了"),
        ("我家猫叫咪咪", "我家猫叫花花，不叫咪咪"),
        # an age said as "I'm 28"
        ("I'm 28", "I just turned 29"),
    ],
)
def test_another_value_of_the_same_slot_supersedes(
    embedder: UseM3Embedder, first: str, second: str
) -> None:
    assert "contradicts" in _relations(embedder, first, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # a change word about another object, or a thing put somewhere
        ("I use a ThinkPad laptop", "I left my laptop at home today"),
        ("I drive a Honda car", "I left my keys in the car"),
        ("I go to the gym on Mondays", "I switched gym shoes"),
        ("I use an iPhone", "I changed phone cases"),
        # "used to" in another clause
        ("I like jazz music", "I used to play the piano, now I listen to jazz music"),
        # denying something narrower than what is stored
        ("我是素食者", "我不是纯素食者"),
        ("I like tea", "I don't like tea with milk"),
        ("我喜欢喝咖啡", "我不喜欢喝加糖的咖啡"),
        # one more time, said to add
        ("I run every morning", "I also run every evening"),
        ("我每天早上跑步", "我晚上也会跑步"),
        # another holder, another object, consistent with the diet
        ("I'm vegetarian", "My husband eats meat"),
        ("我是素食者", "我不吃鸡蛋"),
        ("I have two cats", "I have two kids"),
        ("我有两只猫", "我有三只猫头鹰玩偶"),
        # another day said to add, a walk that is no commute, a club that is no employer
        ("我每天开车上班", "我周五也骑车上班"),
        ("I walk to school", "I walk my dog every evening"),
        ("我在腾讯工作", "我加入了公司的篮球队"),
        ("I work at Google", "I joined a book club"),
        # one dated occurrence of a routine at another time or by other means
        ("我每天开车上班", "今天我坐地铁上班"),
        ("我每天早上跑步", "今天我晚上跑步"),
        # a thing without what was denied is no case of it
        ("I don't drink alcohol", "I drink alcohol-free beer now"),
        ("I don't eat pork", "I eat pork-free sausages now"),
        ("I don't eat meat", "I eat meatless burgers now"),
        ("我不喝酒", "我现在喝无酒精啤酒了"),
        ("我不吃糖", "我现在吃无糖饼干"),
        # a switch of something unrelated
        ("我每天跑步", "我换了双跑鞋"),
        ("我喜欢看科幻片", "我换了新工作"),
    ],
)
def test_no_false_supersession_on_a_slot(embedder: UseM3Embedder, first: str, second: str) -> None:
    assert "contradicts" not in _relations(embedder, first, second)


def test_slot_helpers() -> None:
    assert strip_count("有三只猫") == "猫"
    assert strip_count("养了一条狗") == "养狗"
    assert strip_count("猫头鹰") == "猫头鹰"
    assert time_slot_change("每天早上跑步", "每天晚上跑步")
    assert not time_slot_change("每天早上跑步", "每天早上游泳")
    assert not time_slot_change("跑步", "每天晚上跑步")  # no slot on one side: more detail
    assert canonical_attribute("手机号") == canonical_attribute("电话") == "phone"
    assert canonical_attribute("my new phone number") == "phone"
    assert canonical_attribute("email address") == canonical_attribute("邮箱") == "email"
    assert canonical_attribute("address") == "address"
    assert canonical_attribute("favourite colour") == "favourite colour"


@pytest.mark.parametrize(
    ("text", "content", "holder"),
    [
        ("Tom told me he quit Google", "Tom quit Google", "tom"),
        ("I quit smoking", "The user quit smoking", "user"),
        ("I now like Word files", "The user now likes Word files", "user"),
        ("我老婆的生日是5月3日", "用户的老婆的生日是5月3日", "用户的老婆"),
    ],
)
def test_wording_of_reported_and_adverb_clauses(text: str, content: str, holder: str) -> None:
    """A past "quit" stays past; an adverb takes no verb ending; an attribute stays out of the
    holder."""
    facts = RulesLLM().extract(ExtractInput(text=text, observed_at=NOW))[0].facts
    assert [(f.content, dict(f.key)["holder"]) for f in facts] == [(content, holder)]


@pytest.mark.parametrize(
    ("text", "content", "holder"),
    [
        ("My parents live in Osaka", "The user's parents live in Osaka", "the user's parents"),
        ("My kids love pizza", "The user's kids love pizza", "the user's kids"),
        ("My friends call me Sam", "The user wants to be called Sam", "user"),
        ("I'm based in Berlin", "The user is based in Berlin", "user"),
    ],
)
def test_plural_holders_and_other_residence_words(text: str, content: str, holder: str) -> None:
    """Several people keep a plural verb and their own holder; "based in" is a residence."""
    facts = RulesLLM().extract(ExtractInput(text=text, observed_at=NOW))[0].facts
    assert [(f.content, dict(f.key)["holder"]) for f in facts] == [(content, holder)]


def test_based_in_the_same_city_is_a_duplicate(embedder: UseM3Embedder) -> None:
    assert _relations(embedder, "I live in Berlin", "I'm based in Berlin") == ["duplicate"]
    assert "contradicts" not in _relations(embedder, "I like pizza", "My kids love pizza")
