"""A refused input comes back as the error type that was raised: ``error_from_dict`` (how a
write's per-item error reaches the caller) maps a code to the class declaring it, never to a
subclass that only inherits the code."""

from __future__ import annotations

import pytest

from memory_engine import MemoryEngine, Scope, Settings, errors
from memory_engine.errors import (
    InvalidInputError,
    MemoryAlreadyActiveError,
    MemoryEngineError,
    error_from_dict,
)
from memory_engine.write.request_checks import MAX_METADATA_DEPTH, check_metadata


def _declaring() -> list[type[MemoryEngineError]]:
    found = [
        c
        for c in vars(errors).values()
        if isinstance(c, type) and issubclass(c, MemoryEngineError) and "code" in vars(c)
    ]
    assert len({c.code for c in found}) == len(found)  # one class per declared code
    return found


@pytest.mark.parametrize("cls", _declaring(), ids=lambda c: c.__name__)
def test_every_declared_code_round_trips_to_its_class(cls: type[MemoryEngineError]) -> None:
    rebuilt = error_from_dict(cls("某个错误 / an error", memory_id="m1").to_dict())
    assert type(rebuilt) is cls
    assert rebuilt.message == "某个错误 / an error"


def test_a_refused_metadata_stays_an_invalid_input_error() -> None:
    with pytest.raises(InvalidInputError) as err:
        check_metadata({"x": "y" * 20_000})
    rebuilt = error_from_dict(err.value.to_dict())
    assert type(rebuilt) is InvalidInputError
    assert not isinstance(rebuilt, MemoryAlreadyActiveError)


def _nested(depth: int) -> dict:
    root: dict = {}
    node = root
    for _ in range(depth - 1):
        node["a"] = {}
        node = node["a"]
    return root


@pytest.mark.parametrize("depth", [MAX_METADATA_DEPTH + 1, 900, 5000])
def test_deeply_nested_metadata_is_a_typed_refusal(depth: int) -> None:
    # 900 levels passed json.dumps and then overflowed the PII scan; 5,000 overflowed dumps
    with pytest.raises(InvalidInputError, match="nested deeper"):
        check_metadata(_nested(depth))
    with pytest.raises(InvalidInputError, match="nested deeper"):
        check_metadata({"list": [[[[x] for x in range(2)]]] * 1, "deep": _nested(depth)})


def test_metadata_nested_up_to_the_bound_is_accepted() -> None:
    check_metadata(_nested(MAX_METADATA_DEPTH))
    check_metadata({"客户": {"名字": "王", "标签": [["a", "b"], {"c": 1}]}})


def test_a_wrongly_typed_write_argument_is_an_invalid_input_error(tmp_path) -> None:
    engine = MemoryEngine(Settings(store="qdrant", qdrant_path=":memory:", data_dir=str(tmp_path)))
    try:
        with pytest.raises(InvalidInputError) as err:
            engine.write(Scope.of("types"), "我对花生过敏", tags=[["nested", "list"]])
        assert err.value.message.startswith("invalid write: tags.0")
        assert "nested" not in err.value.message  # the refused value is not echoed
        with pytest.raises(InvalidInputError):
            engine.write(Scope.of("types"), "I like tea", importance=float("nan"))
    finally:
        engine.close()
