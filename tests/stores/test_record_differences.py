"""``record_differences`` (stores/common.py), the comparison behind the copy verification."""

from __future__ import annotations

import uuid

from memory_engine.models import Event, EventAction, Memory
from memory_engine.stores.base import MemoryRecord
from memory_engine.stores.record_compare import record_differences


def _record(**memory_fields: object) -> MemoryRecord:
    mid = uuid.UUID(int=7)
    memory = Memory(id=mid, tenant_id="t", content="我对花生过敏", **memory_fields)  # type: ignore[arg-type]
    event = Event(
        tenant_id="t", memory_id=mid, action=EventAction.CREATE, actor="a", at=memory.created_at
    )
    return MemoryRecord(
        memory_id=mid, memory=memory, embedding=(3.0, 4.0), terms=("花生", "过敏"), events=(event,)
    )


def test_equal_records_and_vector_norm_is_not_data() -> None:
    a = _record()
    assert record_differences(a, a) == []
    scaled = a.model_copy(update={"embedding": (0.6, 0.8)})  # same direction, unit norm
    assert record_differences(a, scaled) == []
    turned = a.model_copy(update={"embedding": (0.8, 0.6)})
    assert record_differences(a, turned) == ["embedding"]
    shorter = a.model_copy(update={"embedding": (1.0,)})
    assert record_differences(a, shorter) == ["embedding"]


def test_fields_terms_events_and_missing_memory() -> None:
    a = _record()
    assert a.memory is not None
    b = a.model_copy(
        update={"memory": a.memory.model_copy(update={"version": 2, "importance": 0.9})}
    )
    assert record_differences(a, b) == ["memory.importance", "memory.version"]
    assert record_differences(a, a.model_copy(update={"terms": ("过敏", "花生")})) == []  # a bag
    assert record_differences(a, a.model_copy(update={"terms": ("花生",)})) == ["terms"]
    assert record_differences(a, a.model_copy(update={"terms": None})) == []  # not kept: skipped
    other_actor = (a.events[0].model_copy(update={"actor": "b", "id": 99}),)
    assert record_differences(a, a.model_copy(update={"events": other_actor})) == ["events[0]"]
    same_but_new_id = (a.events[0].model_copy(update={"id": 12345}),)
    assert record_differences(a, a.model_copy(update={"events": same_but_new_id})) == []
    gone = MemoryRecord(memory_id=a.memory_id)
    assert record_differences(a, gone) == ["memory missing", "events (1 vs 0)"]
    assert record_differences(gone, a) == ["memory unexpected", "events (0 vs 1)"]
