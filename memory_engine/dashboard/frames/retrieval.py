"""Frames and text of the retrieval tools on Query Replay: "why not X?" (scores beside the
last returned one, the explanation in the UI language), two configurations compared,
relevance labels and their metrics, and the runs of a golden set.

The verdicts, comparisons and metrics themselves are the engine's (``why_not``,
``compare_traces``, ``precision_at_k``, ``mrr``, ``ndcg_at_k``; pure and tested on their own).
"""

from __future__ import annotations

import pandas as pd

from memory_engine import (
    Comparison,
    GoldenRun,
    Trace,
    WhyNot,
    mrr,
    ndcg_at_k,
    precision_at_k,
    returned_ids,
    score_label,
)
from memory_engine.dashboard.frames import cells
from memory_engine.dashboard.i18n import label, t

FUSIONS = ("rrf", "zscore", "minmax")


def comparison_frame(a: Trace, b: Trace, cmp: Comparison, lang: str) -> pd.DataFrame:
    """One row per memory in either top k: id, content, rank A, rank B, change."""
    content = {c.memory_id: c.content for c in [*a.candidates, *b.candidates]}
    ra = {mid: i for i, mid in enumerate(returned_ids(a)[: cmp.k], start=1)}
    rb = {mid: i for i, mid in enumerate(returned_ids(b)[: cmp.k], start=1)}
    rows = []
    for mid in list(dict.fromkeys([*ra, *rb])):
        if mid in cmp.entered:
            change = "cmp.entered"
        elif mid in cmp.left:
            change = "cmp.left"
        elif mid in cmp.moved:
            change = "cmp.moved"
        else:
            change = "cmp.same"
        rows.append(
            {
                t("col.id", lang): cells.short_id(mid),
                t("col.content", lang): cells.clip(content.get(mid, "")),
                t("cmp.rank_a", lang): ra.get(mid),
                t("cmp.rank_b", lang): rb.get(mid),
                t("cmp.change", lang): t(change, lang),
            }
        )
    frame = pd.DataFrame(rows)
    for col in (t("cmp.rank_a", lang), t("cmp.rank_b", lang)):
        if col in frame:
            frame[col] = frame[col].astype("Int64")
    return frame


def runs_frame(runs: list[GoldenRun], lang: str) -> pd.DataFrame:
    """One row per run: time, mean recall@k, mean MRR (percent)."""
    return pd.DataFrame(
        {
            t("gold.when", lang): [cells.fmt_time(r.at) for r in runs],
            t("gold.recall", lang): [round(100 * r.mean_recall, 1) for r in runs],
            t("gold.mrr", lang): [round(100 * r.mean_mrr, 1) for r in runs],
            t("gold.fusion", lang): [str(r.config.get("fusion", "")) for r in runs],
        }
    )


def metrics(ranked: list[str], relevant: set[str], k: int) -> dict[str, float]:
    """P@k, MRR (within k) and nDCG@k of one labelled ranking."""
    return {
        "p": precision_at_k(ranked, relevant, k),
        "mrr": mrr(ranked, relevant, k),
        "ndcg": ndcg_at_k(ranked, relevant, k),
    }


def scores_frame(result: WhyNot, lang: str) -> pd.DataFrame:
    """One row per score name: the memory's value and the last returned candidate's."""
    last = result.last_kept.scores if result.last_kept else {}
    names = list(dict.fromkeys([*result.scores, *last]))
    return pd.DataFrame(
        {
            t("why.score", lang): [score_label(n) for n in names],
            t("why.this", lang): [result.scores.get(n) for n in names],
            t("why.last_kept", lang): [last.get(n) for n in names],
        }
    )


def explanation(result: WhyNot, trace: Trace, lang: str) -> str:
    """The verdict's explanation in ``lang`` (``WhyNot.explanation`` is English only), from
    the same fields: ranks, scores, the trace's configuration and the last returned one."""
    config, scores = trace.config, result.scores
    verdict = result.verdict
    if verdict == "not_recalled":
        return t("why.x.not_recalled", lang, depth=config.get("candidates_per_leg", "?"))
    if verdict == "returned":
        return t("why.x.returned", lang, rank=result.ranks.get("final"))
    if verdict == "below_min_score":
        rrf = f"{scores.get('rrf', 0.0):.5f}"
        return t("why.x.below_min_score", lang, rrf=rrf, min_score=config.get("min_score"))
    if verdict == "below_min_cosine":
        return t("why.x.below_min_cosine", lang, cosine=f"{scores.get('cosine', 0.0):.3f}")
    if verdict == "below_relevance_floor":
        return t(
            "why.x.below_relevance_floor",
            lang,
            cosine=f"{scores.get('cosine', 0.0):.3f}",
            coverage=f"{scores.get('coverage', 0.0):.2f}",
        )
    if verdict in ("duplicate_content", "near_duplicate"):
        return t("why.x.duplicate", lang)
    if verdict == "below_top_k":
        text = t("why.x.below_top_k", lang, rank=result.ranks.get("weighted"), k=config.get("k"))
        final = scores.get("final")
        last = result.last_kept.scores.get("final") if result.last_kept else None
        if final is not None and last is not None:
            gap = "" if lang == "zh" else " "  # Chinese sentences are not space-separated
            text += gap + t("why.x.final_vs_last", lang, final=f"{final:.4f}", last=f"{last:.4f}")
        return text
    if verdict == "over_token_budget":
        return t("why.x.over_token_budget", lang, budget=config.get("token_budget"))
    return t("why.x.other", lang, reason=result.explanation)


def stage_name(stage: str, lang: str) -> str:
    """A verdict's stage in ``lang`` (unknown stages as they are)."""
    return label(f"why.stage.{stage}", lang, stage)
