"""Query Replay shows a trace's cross-tenant alarm as a red error badge (en + zh).

The alarm is produced for real: a search through the real engine over
``tests.security.test_tenant_guard._LeakingPostgresStore`` (the real PostgreSQL store on the
dashboard's database whose recall legs also return another tenant's row: the one test double of
the security suite, since a real store cannot leak) stores a trace with ``tenant_alarms``; the
page opens that stored trace from its URL.
"""

from __future__ import annotations

from collections.abc import Callable

from memory_engine import MemoryEngine, Scope
from memory_engine.dashboard.i18n import t
from tests.dashboard.helpers import REPLAY, run_app, texts
from tests.security.test_tenant_guard import _LeakingPostgresStore


def test_replay_shows_the_cross_tenant_alarm(
    dash_engine: MemoryEngine, make_tenant: Callable[..., str]
) -> None:
    a, b = make_tenant(), make_tenant()
    secret = "Heron vault code 苍鹭保险库 5521"
    theirs = dash_engine.get(
        Scope.of(b), dash_engine.write(Scope.of(b), secret).outcomes[0].memory_id
    )
    store = _LeakingPostgresStore(dash_engine.settings)
    leaking = MemoryEngine(dash_engine.settings, store=store, embedder=dash_engine.embedder)
    try:
        store.foreign = [(b, theirs.id)]
        trace = leaking.search(Scope.of(a), "coffee").trace
    finally:
        leaking.close()
    assert [al["stage"] for al in trace.tenant_alarms] == ["dense", "keyword"]

    for lang in ("en", "zh"):
        at = run_app(page=REPLAY, tenant=a, trace=str(trace.id), lang=lang)
        assert at.query_params["trace"] == str(trace.id)
        badge = t("alarm.badge", lang)
        assert any(badge in m for m in texts(at.markdown)), texts(at.markdown)
        expected = t("alarm.detail", lang, dropped=2, stages="dense, keyword")
        assert expected in texts(at.error)
        shown = " ".join(texts(at.code) + texts(at.markdown) + texts(at.dataframe))
        assert "Heron" not in shown and "苍鹭" not in shown

    clean = run_app(page=REPLAY, tenant=b, trace=str(dash_engine.search(Scope.of(b), "x").trace.id))
    assert not [e for e in texts(clean.error) if "ALARM" in e]
