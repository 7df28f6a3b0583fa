"""Frames of the Write Inspector and Conflicts pages: past writes (journal rows, with their
LLM tokens and cost; dry runs labelled as such), raw ingests (memories stored one per turn
without the extract pipeline, grouped into runs, from the audit events), LLM usage per day, the
actions of a write, the stored memories shown to the judge, and the Conflicts review queue.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from memory_engine.dashboard.frames.cells import fmt_time
from memory_engine.dashboard.frames.labels import value_label
from memory_engine.dashboard.i18n import label, reason_text, t
from memory_engine.models import Event, EventAction

#: Characters of an input shown in the list of past writes.
INPUT_PREVIEW = 80


def is_dry_run(row: dict[str, Any]) -> bool:
    """True when a journal row is a dry run: flagged in its result, or (rows written before the
    flag) any of its actions only planned."""
    result = row.get("result") or {}
    if result.get("dry_run"):
        return True
    return any(isinstance(a, dict) and a.get("planned") for a in result.get("actions") or [])


def status_label(row: dict[str, Any], lang: str) -> str:
    """The status of a journal row in ``lang``; a dry run is "dry run", never "skipped"."""
    if is_dry_run(row):
        return t("write.status_dry_run", lang)
    status = str(row.get("status", ""))
    return label(f"write.status.{status}", lang, status)


def is_raw_write(event: Event) -> bool:
    """True for the ``create`` event of a memory stored as is (raw ingest, ``write`` without
    extraction): the extract pipeline stamps its memories with their ``write_id``."""
    if event.action is not EventAction.CREATE or not isinstance(event.after, dict):
        return False
    meta = event.after.get("metadata") or {}
    return not (isinstance(meta, dict) and meta.get("write_id"))


def raw_ingests_frame(events: Iterable[Event], lang: str) -> pd.DataFrame:
    """Raw writes as runs, newest first: consecutive ``create`` events (newest first, as
    ``MemoryEngine.events`` returns them) of one actor, reason and source make one run.

    Columns: first and last time (UTC text), memories, source (the memory source, in
    ``lang``), sessions (distinct ``session_id``), turns (first → last ``source_ref``), actor,
    reason, and the newest content of the run.
    """
    runs: list[dict[str, Any]] = []
    for e in events:
        if not is_raw_write(e):
            continue
        after = e.after or {}
        key = (e.actor, e.reason or "", str(after.get("source", "")))
        if runs and runs[-1]["key"] == key:
            run = runs[-1]
        else:
            run = {"key": key, "last": e.at, "n": 0, "sessions": set(), "refs": [], "text": ""}
            run["text"] = str(after.get("content", ""))
            runs.append(run)
        run["first"] = e.at
        run["n"] += 1
        if after.get("session_id"):
            run["sessions"].add(str(after["session_id"]))
        if after.get("source_ref"):
            run["refs"].append(str(after["source_ref"]))
    return pd.DataFrame(
        [
            {
                t("wcol.first", lang): fmt_time(r["first"]),
                t("wcol.last", lang): fmt_time(r["last"]),
                t("wcol.memories", lang): r["n"],
                t("wcol.source", lang): value_label("source", r["key"][2], lang),
                t("wcol.sessions", lang): len(r["sessions"]),
                t("wcol.turns", lang): (
                    f"{r['refs'][-1]} → {r['refs'][0]}"
                    if len(r["refs"]) > 1
                    else "".join(r["refs"])
                ),
                t("wcol.actor", lang): r["key"][0],
                t("wcol.reason", lang): r["key"][1],
                t("wcol.newest", lang): str(r["text"])[:INPUT_PREVIEW],
            }
            for r in runs
        ]
    )


def writes_frame(items: list[dict[str, Any]], lang: str) -> pd.DataFrame:
    """Past writes (journal rows) as a table, newest first."""
    rows = [
        {
            t("wcol.write_id", lang): w["id"],
            t("wcol.created", lang): str(w.get("created_at", ""))[:19].replace("T", " "),
            t("wcol.status", lang): status_label(w, lang),
            t("wcol.mode", lang): label(f"write.mode.{w.get('mode', '')}", lang, w.get("mode", "")),
            t("wcol.source", lang): value_label(
                "source", str((w.get("request") or {}).get("source", "")), lang
            ),
            t("wcol.input", lang): str((w.get("request") or {}).get("text", ""))[:INPUT_PREVIEW],
            t("wcol.detail", lang): reason_text((w.get("result") or {}).get("reason"), lang),
            t("wcol.tokens_in", lang): int(w.get("prompt_tokens") or 0),
            t("wcol.tokens_out", lang): int(w.get("completion_tokens") or 0),
            t("wcol.cost", lang): w.get("cost"),
        }
        for w in items
    ]
    return pd.DataFrame(rows)


def usage_frame(days: list[dict[str, Any]], lang: str) -> pd.DataFrame:
    """LLM usage per UTC day (``MemoryEngine.write_usage`` rows), newest first: writes, LLM
    requests, input and output tokens, cost (empty when no price is configured)."""
    return pd.DataFrame(
        [
            {
                t("wcol.day", lang): d["day"],
                t("wcol.writes", lang): d["writes"],
                t("wcol.llm_requests", lang): d["llm_requests"],
                t("wcol.tokens_in", lang): d["prompt_tokens"],
                t("wcol.tokens_out", lang): d["completion_tokens"],
                t("wcol.cost", lang): d["cost"],
            }
            for d in days
        ]
    )


def usage_line(row: dict[str, Any], lang: str) -> str | None:
    """One line on the LLM usage of a write (journal row), or None when it made no request."""
    requests = int(row.get("llm_requests") or 0)
    if not requests:
        return None
    cost = row.get("cost")
    return t(
        "write.usage_of_write",
        lang,
        prompt=int(row.get("prompt_tokens") or 0),
        completion=int(row.get("completion_tokens") or 0),
        requests=requests,
        cost=t("write.cost_unpriced", lang) if cost is None else f"{float(cost):.6f}",
    )


def action_label(action: str, lang: str) -> str:
    """A write action (create, duplicate, supersede, supplement...) in ``lang``."""
    return label(f"write.action.{action}", lang, action)


def actions_frame(actions: list[dict[str, Any]], lang: str) -> pd.DataFrame:
    """Actions of a write (create, duplicate, supersede, supplement; planned in a dry run)."""
    return pd.DataFrame(
        [
            {
                t("wcol.action", lang): (
                    t("write.planned", lang, action=action_label(a.get("action", ""), lang))
                    if a.get("planned")
                    else action_label(a.get("action", ""), lang)
                ),
                t("wcol.memory", lang): a.get("memory_id", ""),
                t("wcol.target", lang): a.get("target_id", ""),
                t("wcol.detail", lang): a.get("reason") or a.get("content") or a.get("note") or "",
            }
            for a in actions
        ]
    )


def candidates_frame(candidates: list[dict[str, Any]], lang: str) -> pd.DataFrame:
    """Stored memories shown to the judge for one fact (index = what the judge may name)."""
    return pd.DataFrame(
        [
            {
                t("wcol.index", lang): c["index"],
                t("wcol.candidate", lang): c["content"],
                t("col.cosine", lang): c.get("cosine"),
                t("col.bm25", lang): c.get("bm25"),
                t("wcol.memory", lang): c["memory_id"],
            }
            for c in candidates
        ]
    )


def conflicts_frame(items: list[dict[str, Any]], lang: str) -> pd.DataFrame:
    """The Conflicts review queue (``MemoryEngine.list_conflicts`` items), newest first:
    action, new and old memory, old status, the judge's reason, the review, time (UTC text)."""
    return pd.DataFrame(
        [
            {
                t("wcol.action", lang): action_label(c["action"], lang),
                t("wcol.new", lang): c["new_content"],
                t("wcol.old", lang): c["old_content"],
                t("wcol.old_status", lang): value_label("status", c["old_status"], lang),
                t("wcol.detail", lang): c["reason"],
                t("wcol.review", lang): (c["review"] or {}).get("decision", ""),
                t("wcol.created", lang): str(c["at"])[:19].replace("T", " "),
            }
            for c in items
        ]
    )


def conflict_labels(items: list[dict[str, Any]]) -> list[str]:
    """One label per queue item for the picker: ``n. old → new`` (40 characters of each)."""
    return [
        f"{i + 1}. {c['old_content'][:40]} → {c['new_content'][:40]}" for i, c in enumerate(items)
    ]
