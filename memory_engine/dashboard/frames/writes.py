"""Frames of the Write Inspector and Conflicts pages: past writes (journal rows, with their
LLM tokens and cost), LLM usage per day, the actions of a write, the stored memories shown to
the judge, and the Conflicts review queue.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from memory_engine.dashboard.i18n import reason_text, t

#: Characters of an input shown in the list of past writes.
INPUT_PREVIEW = 80


def writes_frame(items: list[dict[str, Any]], lang: str) -> pd.DataFrame:
    """Past writes (journal rows) as a table, newest first."""
    rows = [
        {
            t("wcol.write_id", lang): w["id"],
            t("wcol.created", lang): str(w.get("created_at", ""))[:19].replace("T", " "),
            t("wcol.status", lang): w.get("status", ""),
            t("wcol.mode", lang): w.get("mode", ""),
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


def actions_frame(actions: list[dict[str, Any]], lang: str) -> pd.DataFrame:
    """Actions of a write (create, duplicate, supersede, supplement; planned in a dry run)."""
    return pd.DataFrame(
        [
            {
                t("wcol.action", lang): a.get("action", "")
                + (" (dry run)" if a.get("planned") else ""),
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
                "cosine ↑": c.get("cosine"),
                "bm25 ↑": c.get("bm25"),
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
                t("wcol.action", lang): c["action"],
                t("wcol.new", lang): c["new_content"],
                t("wcol.old", lang): c["old_content"],
                t("wcol.old_status", lang): c["old_status"],
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
