"""Lifecycle commands of ``memory-engine``: ``maintain``, ``purge`` and ``forget-user``.

Registered on the shared app (:mod:`memory_engine.cli.common`); they share its error handling
(``error: <message>``, exit status 2; JSON errors with ``--json``).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from memory_engine.cli.common import app, open_engine, out, progress, run
from memory_engine.errors import InvalidInputError
from memory_engine.models import Scope


@app.command()
def maintain(
    tenant: Annotated[
        str | None, typer.Option(help="Tenant id; omit for every tenant (audited admin read).")
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Only print what would change.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON report.")] = False,
) -> None:
    """Expire valid_until, archive low-retention memories, purge long-archived ones."""

    def work() -> list[dict[str, Any]]:
        engine = open_engine()
        try:
            if tenant:
                with progress() as bar:
                    task = bar.add_task(f"maintain {tenant}", total=None)
                    reports = [
                        engine.maintain(
                            Scope.of(tenant),
                            dry_run=dry_run,
                            progress=lambda d, n: bar.update(task, completed=d, total=n),
                        )
                    ]
            else:
                reports = engine.maintain_all(dry_run=dry_run)
            return [_summary(r) for r in reports]
        finally:
            engine.close()

    data = run(work, as_json)
    if as_json:
        print(json.dumps(data, ensure_ascii=False))
        return
    for r in data:
        verb = "would" if r["dry_run"] else "did"
        planned = r["planned"]
        out.print(
            f"{r['tenant_id']}: {verb} archive {planned['archive']}, purge {planned['purge']}, "
            f"expire {planned['expire']} (scanned {r['scanned_active']} active, "
            f"{r['scanned_archived']} archived; skipped {len(r['skipped'])}; {r['seconds']} s)"
        )
        if r["awaiting_review"]:  # quarantined, kept: never purged before a human looks
            out.print(
                f"{r['tenant_id']}: awaiting review: {r['awaiting_review']} quarantined "
                "memories (kept; MEMORY_QUARANTINE_PURGE_DAYS unset or not reached)"
            )


@app.command()
def purge(
    memory_id: Annotated[str, typer.Argument(help="Memory id.")],
    tenant: Annotated[str, typer.Option(help="Tenant id.")],
    reason: Annotated[
        str | None, typer.Option(help="Why (recorded in the audit trail; needed to purge).")
    ] = None,
    preview: Annotated[
        bool,
        typer.Option("--preview", help="Only count what the purge would erase; erase nothing."),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the deletion receipt (or preview) as JSON.")
    ] = False,
) -> None:
    """Erase one memory everywhere, re-query every index and read path, and print the
    deletion receipt stored as its ``purge_proof`` audit event (exit status 1 when a check
    failed). With ``--preview``: what would be erased, counted."""

    def work() -> dict[str, Any]:
        engine = open_engine()
        try:
            scope = Scope.of(tenant)
            if preview:
                return engine.purge_preview(scope, memory_id).model_dump(mode="json")
            if not reason or not reason.strip():
                raise InvalidInputError("a reason is required to purge (--reason)")
            proof = engine.purge_verified(scope, memory_id, reason=reason, actor="cli")
            return proof.model_dump(mode="json")
        finally:
            engine.close()

    data = run(work, as_json)
    if as_json:
        print(json.dumps(data, ensure_ascii=False))
    elif preview:
        _print_preview(data)
    else:
        _print_receipt(data)
    if not preview and not data["ok"]:
        raise typer.Exit(1)


def _print_preview(data: dict[str, Any]) -> None:
    out.print(
        f"purge of {data['memory_id']} ({data['memory_type']}, {data['status']}, "
        f"v{data['version']}) would erase:"
    )
    for name, n in data["counts"].items():
        out.print(f"  {name}: {n}")
    for name, n in data["reads"].items():
        out.print(f"  read path {name}: {n} hit(s) now")


def _print_receipt(data: dict[str, Any]) -> None:
    out.print(f"deletion receipt of {data['memory_id']}: {'PASS' if data['ok'] else 'FAIL'}")
    for c in data["checks"]:
        verdict = "pass" if c["ok"] else "FAIL"
        extra = f" ({c['error']})" if c.get("error") else ""
        out.print(
            f"  {c['kind']:<9} {c['name']:<28} {c['before']:>5} -> {c['after']:<5} {verdict}{extra}"
        )


@app.command("forget-user")
def forget_user(
    tenant: Annotated[str, typer.Option(help="Tenant id.")],
    user: Annotated[str, typer.Option(help="User id whose memories and traces are erased.")],
    reason: Annotated[str, typer.Option(help="Why (recorded in the audit trail).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Erase every memory, search trace and working-memory session of one user, each
    purge verified."""

    def work() -> dict[str, Any]:
        engine = open_engine()
        try:
            with progress() as bar:
                task = bar.add_task(f"forget {user}", total=None)
                report = engine.forget_user(
                    Scope.of(tenant, user_id=user),
                    reason=reason,
                    actor="cli",
                    progress=lambda d, n: bar.update(task, completed=d, total=n),
                )
            return report.model_dump(mode="json")
        finally:
            engine.close()

    data = run(work, as_json)
    _print(data, as_json)
    if data["failed"]:
        raise typer.Exit(1)


def _summary(report: Any) -> dict[str, Any]:
    plan = report.plan
    return {
        "tenant_id": report.tenant_id,
        "dry_run": report.dry_run,
        "now": plan.now.isoformat(),
        "scanned_active": plan.scanned_active,
        "scanned_archived": plan.scanned_archived,
        "awaiting_review": plan.awaiting_review,
        "planned": plan.counts(),
        "applied": report.applied,
        "skipped": report.skipped,
        "changes": [c.model_dump(mode="json", exclude={"content"}) for c in plan.changes],
        "seconds": report.seconds,
    }


def _print(data: dict[str, Any], as_json: bool) -> None:
    text = json.dumps(data, ensure_ascii=False)
    if as_json:
        print(text)
    else:
        out.print_json(text)
