"""The rules provider on casual phrasings: the subject or owner left out ("Learning Rust on the
side", "工作电脑是MacBook"), an object put first ("另外鱿鱼也超爱", "烟已经不抽了"), values said
without a verb or holder ("手机号138…", "新工位在5楼", "New number: …", "Make that Postgres"),
and corrections that say so ("Change of plans", 更正) without a recognised fact key."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory_engine.embedding.usem3 import UseM3Embedder
from memory_engine.llm.base import ExtractInput
from memory_engine.llm.rules import RulesLLM
from memory_engine.llm.rules_sentences import en_subject_dropped, owner_dropped
from memory_engine.llm.rules_values import attribute_value
from memory_engine.write.evaluation import is_distilled
from tests.llm.test_rules_similar import _relations

NOW = datetime(2026, 3, 10, 9, tzinfo=UTC)


@pytest.fixture(scope="module")
def embedder() -> UseM3Embedder:
    return UseM3Embedder()


@pytest.mark.parametrize(
    ("clause", "restored"),
    [
        ("Learning Rust on the side", "I'm learning Rust on the side"),
        ("Also have a few rosemary plants", "I also have a few rosemary plants"),
        ("Live in Leeds with two cats", "I live in Leeds with two cats"),
        # a request, a subject of its own, a copula after the verb: left as they are
        ("Play some jazz", None),
        ("Swim class is on Thursdays now", None),
        ("I like tea", None),
    ],
)
def test_an_english_clause_gets_its_left_out_subject(clause: str, restored: str | None) -> None:
    assert en_subject_dropped(clause) == restored


@pytest.mark.parametrize(
    ("clause", "restored"),
    [
        ("Work laptop is a Dell XPS 13", "My work laptop is a Dell XPS 13"),
        ("工作电脑是MacBook", "我的工作电脑是MacBook"),
        ("The laptop is on the desk", None),
        ("他的电脑是MacBook", None),
    ],
)
def test_an_attribute_gets_its_left_out_owner(clause: str, restored: str | None) -> None:
    assert owner_dropped(clause) == restored


@pytest.mark.parametrize(
    ("clause", "subject", "value"),
    [
        ("手机号13812345678", "手机号", "13812345678"),
        ("新工位在5楼", "工位", "5楼"),
        ("New number: 415-555-0199, the old one is disconnected", "number", "415-555-0199"),
        ("以后发邮件请用 wang@b.cn", "邮箱", "wang@b.cn"),
    ],
)
def test_a_value_said_without_verb_or_holder(clause: str, subject: str, value: str) -> None:
    found = attribute_value(clause)
    assert found is not None and (found.subject, found.value) == (subject, value)


@pytest.mark.parametrize(
    "clause",
    ["新的一年是个好开始", "新来的实习生是小王", "Please use bob@new.io to reach my assistant"],
)
def test_no_value_read_from_other_new_things(clause: str) -> None:
    assert attribute_value(clause) is None


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("在学日语，每周上两次课", "日语"),
        ("目前在读研究生", "研究生"),
        ("另外鱿鱼也超爱，烧烤必点", "鱿鱼"),
        ("女儿今年上小学三年级了", "女儿"),
        ("Learning Rust on the side.", "Rust"),
        ("Work laptop is a Dell XPS 13.", "Dell"),
    ],
)
def test_casual_statements_are_remembered_as_distilled_facts(text: str, term: str) -> None:
    extraction = RulesLLM().extract(ExtractInput(text=text, observed_at=NOW))[0]
    assert extraction.should_remember
    held = [f.content for f in extraction.facts if term.lower() in f.content.lower()]
    assert held and all(is_distilled(c) for c in held)


@pytest.mark.parametrize("text", ["周末愉快！", "跑一下前端测试", "Play some jazz", "这周天气不错"])
def test_small_talk_and_requests_stay_unremembered(text: str) -> None:
    assert not RulesLLM().extract(ExtractInput(text=text, observed_at=NOW))[0].should_remember


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("我的工位在3楼，靠窗那一排", "行政刚通知，新工位在5楼"),
        ("手机号13812345678，帮我记一下", "号码换了，新号是13987654321"),
        ("My cell is 415-555-0132", "New number: 415-555-0199, the old one is disconnected."),
        (
            "My cell is 415-555-0132 if you need it.",
            "New number: 415-555-0199, the old one is disconnected.",
        ),
        ("My manager is Priya Shah.", "Reorg happened, I report to Tom Becker now."),
        ("I live in Leeds", "Work is crazy this week, so I moved to Berlin"),
        ("目前在杭州上班，租房住", "上个月调去深圳了，现在人在深圳"),
        ("平时我吃素", "其实我已经不吃素了，啥都能吃"),
        ("在学日语，每周上两次课", "日语课没再上了，没坚持下来"),
        (
            "I work as a QA engineer at a fintech startup.",
            "Update: I switched into a product manager role in January.",
        ),
        ("待办事项一直用Todoist管理", "Todoist我不再用了，订阅也取消了"),
        ("I drive a Honda Civic.", "Actually my car is a Toyota Corolla, got confused earlier."),
    ],
)
def test_casual_corrections_supersede(embedder: UseM3Embedder, first: str, second: str) -> None:
    assert "contradicts" in _relations(embedder, first, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("我的手机号是13800001111", "新手机是华为"),
        ("我的手机是iPhone 15", "手机在充电"),
        ("My car is a Honda Civic", "Car is in the shop"),
        ("Our main database is MySQL", "Make it JSON"),
        ("我在阿里工作", "钱转到支付宝了"),
        ("我在阿里工作", "老公调到腾讯了"),
        ("I live in Berlin", "We moved to Kubernetes this year"),
        ("我在美团做算法工程师", "我在一家咖啡店打过工"),
        ("I like jazz music", "I used to play the piano, now I listen to jazz music"),
        (
            "Weekends I usually go hiking.",
            "Also do bouldering at the local gym on Sunday mornings.",
        ),
    ],
)
def test_no_false_supersession_from_casual_phrasings(
    embedder: UseM3Embedder, first: str, second: str
) -> None:
    assert "contradicts" not in _relations(embedder, first, second)


@pytest.mark.parametrize(
    ("text", "entity"),
    [
        ("我们在用ＤｅｅｐＳｅｅｋ的模型", "DeepSeek"),  # full-width, touching Chinese text
        ("我今天用ChatGPT写了周报", "ChatGPT"),
        ("我们组换成飞书了", "飞书"),  # the tool of a use
    ],
)
def test_a_latin_or_tool_name_inside_chinese_text_is_an_entity(text: str, entity: str) -> None:
    facts = RulesLLM().extract(ExtractInput(text=text, observed_at=NOW))[0].facts
    assert any(entity in f.entities for f in facts)


def test_a_person_put_first_is_not_an_object() -> None:
    facts = RulesLLM().extract(ExtractInput(text="老公已经戒了", observed_at=NOW))[0].facts
    assert not any("戒了老公" in f.content for f in facts)


def test_one_entity_per_spelling_within_a_fact() -> None:
    facts = RulesLLM().extract(ExtractInput(text="我用Notion记笔记", observed_at=NOW))[0].facts
    names = [e for f in facts for e in f.entities]
    assert names.count("Notion") == 1 and "notion" not in names
