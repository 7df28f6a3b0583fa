"""``MemoryEngine.warm_up``: the model, tokenizers and store load before the first search, and a
search arriving during the warm-up waits for it instead of loading the model a second time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memory_engine import MemoryEngine, Scope, Settings
from memory_engine.errors import StoreUnavailableError

REPO = Path(__file__).resolve().parents[2]

# A new process (the model is not loaded yet); BertEncoder counts its constructions.
_SCRIPT = """
import json, threading
from memory_engine import MemoryEngine, Scope, Settings, text
from memory_engine.embedding import minilm

loads = []


class CountingEncoder(minilm.BertEncoder):
    def __init__(self, *args, **kwargs):
        loads.append(threading.current_thread().name)
        super().__init__(*args, **kwargs)


minilm.BertEncoder = CountingEncoder
with MemoryEngine(Settings()) as engine:
    warm = engine.warm_up(open_store=True, background=True)
    result = engine.search(Scope.of("demo"), "花生过敏")  # arrives while warm-up runs
    warm.result(timeout=120)
    engine.search(Scope.of("demo"), "peanut allergy")
    print(json.dumps({
        "loads": loads,
        "jieba_loaded": text._jieba_tokenizer is not None,
        "memories": len(result.memories),
    }))
"""


def test_search_during_background_warm_up_loads_the_model_once(tmp_path: Path) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")},
        "MEMORY_DATA_DIR": str(tmp_path / ".memory"),
        "PYTHONPATH": str(REPO),
    }
    run = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert len(report["loads"]) == 1, report
    assert report["jieba_loaded"] is True  # sample=None: a long-lived process warms jieba too
    assert report["memories"] == 0  # an empty tenant; the search itself worked


def test_failed_background_warm_up_is_reported_by_the_future_and_the_search() -> None:
    settings = Settings(  # type: ignore[call-arg]
        database_url="postgresql://nobody@127.0.0.1:9/none?connect_timeout=2", _env_file=None
    )
    engine = MemoryEngine(settings)
    try:
        warm = engine.warm_up(open_store=True, background=True)
        assert isinstance(warm.exception(timeout=120), StoreUnavailableError)
        with pytest.raises(StoreUnavailableError):
            engine.search(Scope.of("demo"), "anything")
    finally:
        engine.close()


def test_foreground_warm_up_loads_without_opening_the_store() -> None:
    settings = Settings(  # type: ignore[call-arg]
        database_url="postgresql://nobody@127.0.0.1:9/none?connect_timeout=2", _env_file=None
    )
    engine = MemoryEngine(settings)
    try:
        assert engine.warm_up(sample="hello").result() is None  # the store is never touched
        with pytest.raises(StoreUnavailableError):
            engine.search(Scope.of("demo"), "hello")
    finally:
        engine.close()


# The load is slowed so that close() comes while it is still under way.
_CLOSE_SCRIPT = """
import json, time
from memory_engine import MemoryEngine, Settings
from memory_engine.embedding import minilm

events = []


class SlowEncoder(minilm.BertEncoder):
    def __init__(self, *args, **kwargs):
        time.sleep(1.0)
        super().__init__(*args, **kwargs)
        events.append("loaded")


minilm.BertEncoder = SlowEncoder
engine = MemoryEngine(Settings())
engine.warm_up(background=True)
engine.close()  # e.g. a CLI search refusing an empty query at once
events.append("closed")
print(json.dumps(events))
"""


def test_close_waits_for_a_background_warm_up_still_loading(tmp_path: Path) -> None:
    """A process exiting while a daemon thread loads a native model can crash (SIGSEGV) at
    interpreter shutdown; ``close()`` waits for the load, so the exit comes after it."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")},
        "MEMORY_DATA_DIR": str(tmp_path / ".memory"),
        "PYTHONPATH": str(REPO),
    }
    run = subprocess.run(
        [sys.executable, "-c", _CLOSE_SCRIPT],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.strip().splitlines()[-1]) == ["loaded", "closed"]
