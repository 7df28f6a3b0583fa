"""Every page in 中文 shows no English interface text (AppTest pass; the browser pass is in
test_browser_chinese_ui.py).

A tenant of Chinese memories is seeded with every kind of row the pages show (each memory type
and source, archived / deleted / superseded rows, an edit, a search trace, extract writes with
a dry run, a raw ingest), so every table, chart and picker of every page is filled; then each
page (and the detail views a URL opens) is rendered in Chinese and checked with the general
rule of :mod:`tests.dashboard.untranslated`: no run of English words outside data, kept names
and code; no stored enum value in a table cell; every picker has a Chinese placeholder.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from memory_engine import (
    MemoryEngine,
    MemoryFilter,
    MemorySource,
    MemoryStatus,
    MemoryType,
    Scope,
    WriteRequest,
)
from memory_engine.dashboard import state
from memory_engine.write.ingest import Turn
from tests.dashboard.conftest import new_tenant
from tests.dashboard.helpers import assert_clean, run_app
from tests.dashboard.untranslated import english_runs, untranslated

PAGES = sorted(
    p.name
    for p in __import__("pathlib")
    .Path(__file__)
    .resolve()
    .parents[2]
    .joinpath("pages")
    .glob("*.py")
)

FACTS = (
    ("用户对花生过敏", MemoryType.SEMANTIC, MemorySource.MANUAL),
    ("用户早上喜欢喝绿茶", MemoryType.SEMANTIC, MemorySource.CONVERSATION),
    ("用户五月十二日飞往里斯本", MemoryType.EPISODIC, MemorySource.CONVERSATION),
    ("重置路由器时按住按钮十秒", MemoryType.PROCEDURAL, MemorySource.TOOL_OUTPUT),
    ("用户的猫叫小白", MemoryType.SEMANTIC, MemorySource.IMPORT),
)
QUERY = "用户喜欢喝什么"


@dataclass(frozen=True)
class Seeded:
    tenant: str
    memory_id: str
    trace_id: str
    write_id: str
    data: tuple[str, ...]


def seed_chinese_tenant(engine: MemoryEngine, *, extract: bool = True) -> Seeded:
    """A tenant of Chinese memories with every row kind the pages show (see the module doc);
    ``extract``: also extract writes (a dry run, a supersede), which need ``engine``'s journal."""
    tenant = new_tenant("zhui")
    scope = Scope.of(tenant)
    start = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
    results = engine.write_many(
        scope,
        [
            WriteRequest(
                text=text, memory_type=mtype, source=source, observed_at=start, tags=("健康",)
            )
            for text, mtype, source in FACTS
        ],
        actor="test",
    )
    ids = [r.outcomes[0].memory_id for r in results]
    mems = {m.id: m for m in engine.list(scope).items}
    engine.archive(scope, ids[3], expected_version=mems[ids[3]].version, reason="过时")
    engine.delete(scope, ids[4], expected_version=mems[ids[4]].version, reason="错误")
    engine.update(
        scope,
        ids[1],
        expected_version=mems[ids[1]].version,
        reason="更正",
        content="用户早上喜欢喝红茶",
    )
    engine.ingest(
        scope,
        [
            Turn(speaker="用户", text="我下周去杭州出差", turn_id="D1:1", session_id="s1",
                 observed_at=start + timedelta(days=1)),
            Turn(speaker="助手", text="好的，祝你顺利", turn_id="D1:2", session_id="s1",
                 observed_at=start + timedelta(days=1, minutes=1)),
        ],
    )  # fmt: skip
    write_id = ""
    if extract:
        engine.write_extract(scope, WriteRequest(text="以后周四汇报"), actor="test", dry_run=True)
        engine.write(scope, "以后周四汇报", mode="extract")
        write_id = str(engine.write(scope, "改成周五汇报", mode="extract").write_id)
    trace = engine.search(scope, QUERY)
    state.cached_tenant_counts.clear()
    every = MemoryFilter(statuses=tuple(MemoryStatus))
    contents = [m.content for m in engine.list(scope, filters=every, limit=100).items]
    return Seeded(
        tenant=tenant,
        memory_id=str(ids[0]),
        trace_id=str(trace.trace.id),
        write_id=write_id,
        data=(tenant, QUERY, "dashboard:local", "local", "test", "ingest", "api", *contents),
    )


@pytest.fixture
def chinese_tenant(journal_engine: MemoryEngine) -> Iterator[Seeded]:
    """The seeded tenant (see :func:`seed_chinese_tenant`) on the pages' engine."""
    yield seed_chinese_tenant(journal_engine)


def _views(seeded: Seeded) -> list[tuple[str, dict[str, str]]]:
    """Every page, plus the detail views a URL opens (a memory, a trace, a write trail)."""
    views: list[tuple[str, dict[str, str]]] = [(f"pages/{p}", {}) for p in PAGES]
    views += [
        ("pages/memories.py", {"memory": seeded.memory_id}),
        ("pages/query_replay.py", {"trace": seeded.trace_id}),
        ("pages/write_inspector.py", {"write": seeded.write_id}),
    ]
    return views


def test_english_runs_rule() -> None:
    """The rule itself: English words are found, kept names, code, ids and data are not."""
    assert english_runs("Choose options") == ["Choose options"]
    assert english_runs("记忆状态已变为 archived") == ["archived"]
    assert (
        english_runs("已保存 3 条（UTC）· LLM tokens · `memory-engine ingest --format locomo`")
        == []
    )
    assert english_runs("记忆 123e4567-e89b-12d3-a456-426614174000 · MEMORY_DATA_DIR") == []
    assert english_runs("租户 acme-prod 的记忆", data=["acme-prod"]) == []
    assert english_runs("rrf（融合）↑ · bm25 ↑") == []
    assert english_runs("Rows 1–25 of 30") == ["Rows", "of"]


def test_every_page_in_chinese_has_no_english_interface_text(chinese_tenant: Seeded) -> None:
    problems: dict[str, list[tuple[str, str]]] = {}
    for page, params in _views(chinese_tenant):
        at = run_app(page=page, tenant=chinese_tenant.tenant, lang="zh", **params)
        assert_clean(at)
        assert not at.error, (page, [e.value for e in at.error])
        found = untranslated(at, chinese_tenant.data)
        if found:
            problems[f"{page} {params}"] = sorted(set(found))
    assert not problems, "\n".join(f"{page}: {found}" for page, found in problems.items())


def test_empty_tenant_hint_names_every_import_format() -> None:
    """The hint lists each format of ``memory-engine ingest --format`` with what it reads."""
    from memory_engine.cli.ingest import Fmt
    from memory_engine.dashboard.page import IMPORT_FORMATS, empty_tenant_hint

    assert list(IMPORT_FORMATS) == [f.value for f in Fmt]
    for lang in ("en", "zh"):
        hint = empty_tenant_hint("acme", lang)
        for fmt in Fmt:
            assert f"- `{fmt.value}`" in hint
        assert "--format FORMAT" in hint
    assert english_runs(empty_tenant_hint("acme", "zh"), data=["acme"]) == []


def test_every_chinese_catalog_string_is_chinese() -> None:
    """The catalog's own zh strings pass the rule (placeholders aside)."""
    import re

    from memory_engine.dashboard.i18n import STRINGS

    bad = {
        key: english_runs(re.sub(r"\{[^}]*\}", " ", entry["zh"])) for key, entry in STRINGS.items()
    }
    assert not {k: v for k, v in bad.items() if v}
