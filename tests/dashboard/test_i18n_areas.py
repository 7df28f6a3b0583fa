"""The UI strings are split by area: every key prefix (the part before the first ``.``) lives
in exactly one area file, no area file is named after a work batch, and every area file of
``memory_engine/dashboard/i18n/`` is merged into the catalog."""

from __future__ import annotations

from collections import defaultdict

from memory_engine.dashboard import i18n
from tests.dashboard.helpers import ROOT

I18N_DIR = ROOT / "memory_engine" / "dashboard" / "i18n"
#: The area file of each key prefix. A new prefix is added here with the one file it lives in.
PREFIX_FILE = {
    "app": "shell",
    "nav": "shell",
    "sidebar": "shell",
    "common": "shell",
    "error": "shell",
    "col": "labels",
    "value": "labels",
    "chart": "labels",
    "overview": "overview",
    "memories": "memories",
    "replay": "replay",
    "stage": "replay",
    "drop": "replay",
    "warning": "replay",
    "wf": "replay",
    "stale": "replay",
    "why": "retrieval",
    "cmp": "retrieval",
    "rel": "retrieval",
    "gold": "retrieval",
    "stores": "stores",
    "retention": "retention",
    "audit": "audit",
    "auth": "auth",
    "ctx": "context",
    "write": "write",
    "wcol": "write",
    "conflicts": "write",
    "weval": "evaluation",
    "pii": "pii",
    "pcol": "pii",
    "isolation": "isolation",
    "alarm": "isolation",
}


def _prefix(key: str) -> str:
    return key.split(".", 1)[0]


def test_every_key_prefix_lives_in_exactly_one_area_file() -> None:
    files_of: dict[str, set[str]] = defaultdict(set)
    for area, strings in i18n.AREAS.items():
        for key in strings:
            files_of[_prefix(key)].add(area)
    split = {prefix: sorted(files) for prefix, files in files_of.items() if len(files) > 1}
    assert not split, f"key prefixes split across area files: {split}"
    assert {p: next(iter(f)) for p, f in files_of.items()} == PREFIX_FILE


def test_every_area_file_is_merged_and_nothing_else_is_there() -> None:
    modules = {p.stem for p in I18N_DIR.glob("*.py")} - {"__init__", "catalog"}
    assert modules == set(i18n.AREAS)
    assert set(PREFIX_FILE.values()) == modules  # no area file without a prefix
    merged = {key for strings in i18n.AREAS.values() for key in strings}
    assert merged == set(i18n.STRINGS)
    assert sum(len(s) for s in i18n.AREAS.values()) == len(i18n.STRINGS)  # no key twice


def test_no_area_file_is_named_after_a_work_batch() -> None:
    batch_names = {"polish", "review", "sec1", "sec2", "tidy", "fixes", "misc", "extra", "core"}
    assert not batch_names & set(i18n.AREAS)


def test_every_known_warning_maps_to_a_string_of_the_replay_area() -> None:
    for key in i18n.KNOWN_WARNINGS.values():
        assert key in i18n.AREAS["replay"]


def test_en_and_zh_have_the_same_keys_in_every_area() -> None:
    for area, strings in i18n.AREAS.items():
        for key, entry in strings.items():
            assert set(entry) == set(i18n.LANGS), (area, key)
