"""Who an MCP client acts for: the tenant binding of the server or of a bearer token.

The tenant (and the optional user and agent ids) comes from the server's configuration
(``MEMORY_MCP_TENANT`` / ``--tenant``) or, over http, from the client's bearer token looked up
in a token map (``MEMORY_MCP_TOKENS_FILE`` or ``MEMORY_MCP_TOKENS``). It is never read from a
tool argument: the tool schemas have no tenant field and unknown arguments are refused.

Token map format (JSON object)::

    {
      "<token>":            {"tenant": "acme", "user_id": "alice", "agent_id": "planner"},
      "sha256:<hex digest>": {"tenant": "globex"}
    }

A key may be the token itself or ``sha256:`` + the hex SHA-256 of the token, so the file need
not hold usable secrets. Lookups hash the presented token and compare digests in constant time.
A plain token shorter than ``MIN_TOKEN_CHARS`` (16) characters, or a ``sha256:`` key that is not
64 hex digits, is refused when the map is loaded (``ConfigError``): the server does not start.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp.server.auth.provider import AccessToken

from memory_engine.config import Settings
from memory_engine.errors import ConfigError, MemoryEngineError
from memory_engine.models import Scope


@dataclass(frozen=True)
class Binding:
    """The scope every tool call of one client acts for (session ids may narrow it).

    ``token_id`` names the bearer token the client presented (``token-`` + the first 12 hex
    digits of its SHA-256, never the token); None for the server's own binding (stdio, or http
    without a token map).
    """

    tenant_id: str
    user_id: str | None = None
    agent_id: str | None = None
    token_id: str | None = field(default=None, compare=False)  # who, not what scope

    @property
    def actor(self) -> str:
        """The audit actor of this client's changes: ``mcp:<token id or server>[:<user>]``,
        e.g. ``mcp:token-3f2a9c1b12ab:alice`` (the user id when the binding has one)."""
        who = f"mcp:{self.token_id or 'server'}"
        return f"{who}:{self.user_id}" if self.user_id else who

    def scope(self, session_id: str | None = None) -> Scope:
        """The bound scope, narrowed to ``session_id`` when given. Raises TenantScopeError."""
        return Scope.of(
            self.tenant_id, user_id=self.user_id, agent_id=self.agent_id, session_id=session_id
        )

    def as_claims(self) -> dict[str, Any]:
        return {
            "tenant": self.tenant_id,
            "user_id": self.user_id,
            "agent_id": self.agent_id,
            "token_id": self.token_id,
        }


#: Shortest bearer token accepted in a token map (characters).
MIN_TOKEN_CHARS = 16
#: How to make a good token (quoted in the error of a short one).
TOKEN_HINT = 'python -c "import secrets; print(secrets.token_urlsafe(32))"'


def _check_key(key: str, binding: Binding, where: str) -> None:
    """Refuse a guessable plain token or a malformed digest (the message never holds the key)."""
    if key.startswith("sha256:"):
        hexpart = key[len("sha256:") :]
        if len(hexpart) != 64 or any(c not in "0123456789abcdefABCDEF" for c in hexpart):
            raise ConfigError(
                f"{where}: the sha256: key of tenant {binding.tenant_id!r} is not 64 hex digits",
                key_kind="sha256",
            )
        return
    if len(key) < MIN_TOKEN_CHARS:
        raise ConfigError(
            f"{where}: the bearer token of tenant {binding.tenant_id!r} has {len(key)} "
            f"characters; the minimum is {MIN_TOKEN_CHARS}. Generate one with: {TOKEN_HINT}",
            min_chars=MIN_TOKEN_CHARS,
            length=len(key),
        )


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_id(digest: str) -> str:
    """The printable id of a token from its SHA-256 hex digest (``token-`` + 12 hex digits)."""
    return f"token-{digest[:12].lower()}"


def _binding_of(entry: Any, where: str) -> Binding:
    if not isinstance(entry, dict) or not isinstance(entry.get("tenant"), str):
        raise ConfigError(f"{where}: each token needs an object with a string 'tenant'")
    unknown = set(entry) - {"tenant", "user_id", "agent_id"}
    if unknown:
        raise ConfigError(f"{where}: unknown keys {sorted(unknown)}")
    binding = Binding(entry["tenant"], entry.get("user_id"), entry.get("agent_id"))
    try:
        binding.scope()
    except MemoryEngineError as exc:
        raise ConfigError(f"{where}: {exc.message}") from exc
    return binding


class TokenMap:
    """Bearer tokens -> ``Binding``; tokens are kept only as SHA-256 digests."""

    def __init__(self, entries: dict[str, Binding]) -> None:
        self._by_digest: dict[str, Binding] = {}
        for key, binding in entries.items():
            digest = key[len("sha256:") :].lower() if key.startswith("sha256:") else _digest(key)
            self._by_digest[digest] = binding

    def __len__(self) -> int:
        return len(self._by_digest)

    def lookup(self, token: str) -> Binding | None:
        """The binding of ``token``, or None (constant-time digest comparison)."""
        presented = _digest(token)
        found: Binding | None = None
        for digest, binding in self._by_digest.items():
            if hmac.compare_digest(digest, presented):
                found = binding
        if found is None:
            return None
        return Binding(found.tenant_id, found.user_id, found.agent_id, token_id(presented))

    @classmethod
    def parse(cls, text: str, *, where: str) -> TokenMap:
        """Parse the JSON token map. Raises ConfigError naming ``where`` (never the token): not
        JSON, not a non-empty object, a bad binding, a plain token shorter than
        ``MIN_TOKEN_CHARS`` or a ``sha256:`` key that is not 64 hex digits."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{where} is not valid JSON: {exc.msg}") from exc
        if not isinstance(data, dict) or not data:
            raise ConfigError(f"{where} must be a non-empty JSON object of token -> binding")
        entries = {str(k): _binding_of(v, where) for k, v in data.items()}
        for key, binding in entries.items():
            _check_key(key, binding, where)
        return cls(entries)

    @classmethod
    def from_settings(cls, settings: Settings) -> TokenMap | None:
        """The token map of ``MEMORY_MCP_TOKENS_FILE`` and/or ``MEMORY_MCP_TOKENS``, or None."""
        entries: dict[str, Binding] = {}
        if settings.mcp.tokens_file is not None:
            path = Path(settings.mcp.tokens_file)
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as exc:
                raise ConfigError(f"cannot read MEMORY_MCP_TOKENS_FILE {path}: {exc}") from exc
            entries.update(cls.parse(text, where=f"MEMORY_MCP_TOKENS_FILE {path}")._by_digest)
        if settings.mcp.tokens is not None:
            parsed = cls.parse(settings.mcp.tokens.get_secret_value(), where="MEMORY_MCP_TOKENS")
            entries.update(parsed._by_digest)
        if not entries:
            return None
        out = cls({})
        out._by_digest = entries
        return out


def settings_binding(settings: Settings) -> Binding | None:
    """The binding of ``MEMORY_MCP_TENANT`` (+ user/agent), or None when no tenant is set.

    Raises:
        ConfigError: an id does not match ``[A-Za-z0-9_.:-]{1,64}``.
    """
    if not settings.mcp.tenant:
        return None
    return _binding_of(
        {
            "tenant": settings.mcp.tenant,
            "user_id": settings.mcp.user_id,
            "agent_id": settings.mcp.agent_id,
        },
        "MEMORY_MCP_TENANT",
    )


class TokenMapVerifier:
    """The SDK's ``TokenVerifier`` over a ``TokenMap``: the binding travels in the claims."""

    def __init__(self, tokens: TokenMap) -> None:
        self._tokens = tokens

    async def verify_token(self, token: str) -> AccessToken | None:
        binding = self._tokens.lookup(token)
        if binding is None:
            return None
        return AccessToken(
            token="(redacted)",
            client_id=binding.token_id or binding.tenant_id,  # one owner of sessions per token
            scopes=["memory"],
            claims={"binding": binding.as_claims()},
        )


def binding_from_claims(claims: dict[str, Any] | None) -> Binding | None:
    """Rebuild the ``Binding`` that ``TokenMapVerifier`` put into an access token's claims."""
    raw = (claims or {}).get("binding")
    if not isinstance(raw, dict) or not isinstance(raw.get("tenant"), str):
        return None
    return Binding(raw["tenant"], raw.get("user_id"), raw.get("agent_id"), raw.get("token_id"))
