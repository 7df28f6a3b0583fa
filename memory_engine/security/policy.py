"""The security screen of every write: PII policy, then prompt-injection screening.

``screen_write`` runs on the cleaned text before chunking, extraction, embedding and storage,
in raw and extract mode alike, so a redacted value never reaches the LLM, the embedder or the
store. Settings (``memory_engine.config.Settings``):

- ``pii_policy`` (``off`` | ``redact`` | ``block``, default ``redact``) and per-tenant
  overrides in ``pii_tenant_policies``; only the kinds in ``pii_kinds`` count (default: secrets,
  resident ID numbers, bank cards; e-mail and phone numbers are kept unless listed, because
  remembering a user's own contact details is often the point);
- ``injection_screening`` (default on): the action table of ``security.injection``;
  ``injection_manual_policy`` (``quarantine`` | ``flag``, default ``quarantine``) and per-tenant
  ``injection_tenant_policies``: what a ``manual`` write (the API default, MCP ``memory_write``,
  the dashboard) that screens as injection gets, since its text often comes from an agent
  relaying a page or a tool result rather than from the user's own words.

The other texts a write or a search stores (tags, entities, metadata values, ``source_ref``,
edit and purge reasons, search queries and recent turns, stored traces, working-memory turns,
the write journal's request) pass ``redact_stored``, the one redaction pass over them: every
listed kind is replaced by its placeholder unless the tenant's policy is ``off`` (under
``block`` these texts are redacted too; only a write's own fields are refused).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, TypeVar

from memory_engine.config import Settings
from memory_engine.errors import SensitiveDataError
from memory_engine.models import MemorySource
from memory_engine.security.injection import ScreenAction, Screening, screen
from memory_engine.security.pii import Finding, PiiPolicy, detect, redact

_ALLOW = Screening(ScreenAction.ALLOW, (), ())

V = TypeVar("V")


@dataclass(frozen=True)
class WriteScreen:
    """Outcome of ``screen_write``: the text to store and what was found."""

    text: str
    policy: PiiPolicy
    pii: list[Finding] = field(default_factory=list)
    screening: Screening = _ALLOW

    @property
    def quarantine(self) -> bool:
        """True when the text must not be searchable until a reviewer releases it."""
        return self.screening.action is ScreenAction.QUARANTINE

    def metadata(self) -> dict[str, Any]:
        """Metadata entries recording the screen (empty when nothing was found)."""
        out: dict[str, Any] = {}
        if self.pii:
            out["pii"] = {
                "policy": self.policy.value,
                "kinds": sorted({f.kind.value for f in self.pii}),
                "count": len(self.pii),
            }
        if self.screening.flagged:
            out["screening"] = self.screening.to_dict()
        if self.quarantine:
            out["quarantined"] = True
        return out


def tenant_pii_policy(settings: Settings, tenant_id: str) -> PiiPolicy:
    """The PII policy of ``tenant_id``: its override, else ``settings.security.pii_policy``."""
    return PiiPolicy(
        settings.security.pii_tenant_policies.get(tenant_id, settings.security.pii_policy)
    )


def listed_findings(text: str, settings: Settings) -> list[Finding]:
    """The findings of ``text`` whose kind is listed in ``settings.security.pii_kinds``."""
    kinds = set(settings.security.pii_kinds)
    return [f for f in detect(text) if f.kind.value in kinds]


def _map_strings(value: Any, fn: Any) -> Any:
    """``value`` with ``fn`` applied to every string in it: a str, list/tuple items, dict
    values (keys kept), recursively; other values unchanged."""
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, dict):
        return {k: _map_strings(v, fn) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_map_strings(v, fn) for v in value)
    if isinstance(value, list):
        return [_map_strings(v, fn) for v in value]
    return value


def findings_in(value: Any, settings: Settings) -> list[Finding]:
    """The listed findings of every string inside ``value`` (offsets are per string)."""
    found: list[Finding] = []

    def collect(text: str) -> str:
        found.extend(listed_findings(text, settings))
        return text

    _map_strings(value, collect)
    return found


def redact_stored(value: V, *, tenant_id: str, settings: Settings) -> V:
    """The one redaction pass over a text a write or a search stores or logs.

    Args:
        value: a str, or a list / tuple / dict holding strings (dict values, recursively;
            keys are kept); None and other values pass unchanged.
        tenant_id: whose policy applies (``tenant_pii_policy``).

    Returns:
        ``value`` of the same shape, every listed PII kind replaced by its placeholder
        (``[BANK_CARD]``, ``[SECRET]``...), unless the tenant's policy is ``off``. Never raises:
        under ``block`` the value is redacted too (a search or a reason is not refused).
    """
    if tenant_pii_policy(settings, tenant_id) is PiiPolicy.OFF:
        return value
    redacted: V = _map_strings(value, lambda text: redacted_copy(text, settings))
    return redacted


def refuse_blocked(findings: list[Finding], *, tenant_id: str, settings: Settings) -> None:
    """Raise SensitiveDataError when the tenant's policy is ``block`` and ``findings`` is not
    empty (the error names the kinds, never the values)."""
    if findings and tenant_pii_policy(settings, tenant_id) is PiiPolicy.BLOCK:
        found = sorted({f.kind.value for f in findings})
        raise SensitiveDataError(
            f"the text holds sensitive data ({', '.join(found)}); this tenant's PII policy "
            "is 'block'",
            kinds=",".join(found),
            count=len(findings),
            tenant=tenant_id,
        )


def redacted_copy(text: str, settings: Settings) -> str:
    """``text`` with every listed kind replaced by its placeholder, whatever the policy
    (used to keep a refused write's input without its secrets)."""
    return _redacted(text, tuple(sorted(settings.security.pii_kinds)))


@functools.lru_cache(maxsize=8192)
def _redacted(text: str, kinds: tuple[str, ...]) -> str:
    """``redacted_copy`` by value (pure, so cached: stored traces repeat the same memory
    contents search after search)."""
    return redact(text, [f for f in detect(text) if f.kind.value in kinds])[0]


def screen_write(
    text: str,
    *,
    source: MemorySource | str,
    tenant_id: str,
    settings: Settings,
    escalate_manual: bool = True,
) -> WriteScreen:
    """Apply the tenant's PII policy, then screen for prompt injection.

    Detection runs under every policy, so ``off`` still records what it kept as is. A
    ``manual`` write that screens as injection is quarantined under the tenant's injection
    policy (``escalate``) unless ``escalate_manual`` is False (an edit of an existing memory:
    flagged, its status left to the editor).

    Returns:
        WriteScreen with the (possibly redacted) text, the PII findings (offsets refer to the
        input) and the injection screening of the redacted text.

    Raises:
        SensitiveDataError: the policy is ``block`` and a listed kind was found (nothing is
            stored; the error names the kinds, never the values).
    """
    policy = tenant_pii_policy(settings, tenant_id)
    findings = listed_findings(text, settings)
    refuse_blocked(findings, tenant_id=tenant_id, settings=settings)
    if findings and policy is PiiPolicy.REDACT:
        text, _ = redact(text, findings)
    screening = _ALLOW
    if settings.security.injection_screening:
        screening = screen(text, source)
        if escalate_manual:
            screening = escalate(screening, source, tenant_id, settings)
    return WriteScreen(text=text, policy=policy, pii=findings, screening=screening)


def tenant_injection_policy(settings: Settings, tenant_id: str) -> str:
    """``quarantine`` or ``flag``: what a manual write of ``tenant_id`` that screens as
    injection gets (its override in ``injection_tenant_policies``, else
    ``injection_manual_policy``)."""
    return settings.security.injection_tenant_policies.get(
        tenant_id, settings.security.injection_manual_policy
    )


#: Rules that flag a ``manual`` write without quarantining it under the ``quarantine``
#: policy: a link, and text addressed to the assistant ("The assistant should always reply in
#: Chinese", "助手应该总是用中文" is how a user or an agent stores a standing instruction; it
#: stays searchable, flagged in ``metadata.screening`` for a reviewer).
NOT_ESCALATED = frozenset({"url", "assistant_directive"})


def escalate(
    screening: Screening, source: MemorySource | str, tenant_id: str, settings: Settings
) -> Screening:
    """``screening`` raised from ``flag`` to ``quarantine`` for a ``manual`` write under the
    ``quarantine`` policy, when a rule outside :data:`NOT_ESCALATED` matched; every other
    screening unchanged."""
    if screening.action is not ScreenAction.FLAG or str(source) != MemorySource.MANUAL.value:
        return screening
    if not set(screening.rules) - NOT_ESCALATED:
        return screening
    if tenant_injection_policy(settings, tenant_id) != "quarantine":
        return screening
    return Screening(ScreenAction.QUARANTINE, screening.rules, screening.snippets)
