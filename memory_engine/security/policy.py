"""The security screen of every write: PII policy, then prompt-injection screening.

``screen_write`` runs on the cleaned text before chunking, extraction, embedding and storage,
in raw and extract mode alike, so a redacted value never reaches the LLM, the embedder or the
store. Settings (``memory_engine.config.Settings``):

- ``pii_policy`` (``off`` | ``redact`` | ``block``, default ``redact``) and per-tenant
  overrides in ``pii_tenant_policies``; only the kinds in ``pii_kinds`` count (default: secrets,
  resident ID numbers, bank cards; e-mail and phone numbers are kept unless listed, because
  remembering a user's own contact details is often the point);
- ``injection_screening`` (default on): the action table of ``security.injection``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memory_engine.config import Settings
from memory_engine.errors import SensitiveDataError
from memory_engine.models import MemorySource
from memory_engine.security.injection import ScreenAction, Screening, screen
from memory_engine.security.pii import Finding, PiiPolicy, detect, redact

_ALLOW = Screening(ScreenAction.ALLOW, (), ())


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


def redacted_copy(text: str, settings: Settings) -> str:
    """``text`` with every listed kind replaced by its placeholder, whatever the policy
    (used to keep a refused write's input without its secrets)."""
    return redact(text, listed_findings(text, settings))[0]


def screen_write(
    text: str, *, source: MemorySource | str, tenant_id: str, settings: Settings
) -> WriteScreen:
    """Apply the tenant's PII policy, then screen for prompt injection.

    Detection runs under every policy, so ``off`` still records what it kept as is.

    Returns:
        WriteScreen with the (possibly redacted) text, the PII findings (offsets refer to the
        input) and the injection screening of the redacted text.

    Raises:
        SensitiveDataError: the policy is ``block`` and a listed kind was found (nothing is
            stored; the error names the kinds, never the values).
    """
    policy = tenant_pii_policy(settings, tenant_id)
    findings = listed_findings(text, settings)
    if findings and policy is PiiPolicy.BLOCK:
        found = sorted({f.kind.value for f in findings})
        raise SensitiveDataError(
            f"the text holds sensitive data ({', '.join(found)}); this tenant's PII policy "
            "is 'block'",
            kinds=",".join(found),
            count=len(findings),
            tenant=tenant_id,
        )
    if findings and policy is PiiPolicy.REDACT:
        text, _ = redact(text, findings)
    screening = screen(text, source) if settings.security.injection_screening else _ALLOW
    return WriteScreen(text=text, policy=policy, pii=findings, screening=screening)
