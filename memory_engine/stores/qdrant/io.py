"""Qdrant client plumbing of the Qdrant store: opening, error mapping, collections, paging.

Errors of qdrant-client are mapped here, at the store boundary (``raise ... from``):
connection problems (``ResponseHandlingException``, httpx/OS errors, HTTP 502-504) to
StoreUnavailableError, the local-mode folder lock to StoreUnavailableError with a message that
says what to do, anything else (``UnexpectedResponse``, local-mode ``ValueError``/
``RuntimeError``) to StoreError.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from memory_engine.config import Settings
from memory_engine.errors import MemoryEngineError, StoreError, StoreUnavailableError
from memory_engine.stores.qdrant.codec import DENSE, KEYWORD, match, us_range

logger = logging.getLogger("memory_engine.stores.qdrant.store")

#: Most points a helper reads in one "read everything matching" loop (tie groups, pending
#: events); beyond it the caller gets a StoreError instead of an unbounded scan.
SCAN_MAX = 100_000
_SCROLL_BATCH = 1000

#: Keyword payload fields indexed in every collection that holds tenant data.
_SCOPE_FIELDS = ("user_id", "agent_id", "session_id")


@contextmanager
def qdrant_errors() -> Iterator[None]:
    """Map qdrant-client / transport errors to the engine's error tree."""
    try:
        yield
    except MemoryEngineError:
        raise
    except ResponseHandlingException as exc:
        raise StoreUnavailableError(f"Qdrant unreachable: {exc}") from exc
    except UnexpectedResponse as exc:
        if exc.status_code in (502, 503, 504):
            raise StoreUnavailableError(f"Qdrant unavailable ({exc.status_code})") from exc
        detail = exc.content.decode("utf-8", "replace")[:500] if exc.content else ""
        raise StoreError(
            f"Qdrant error {exc.status_code}: {exc.reason_phrase} {detail}".strip(),
            status=exc.status_code,
        ) from exc
    except (httpx.HTTPError, ConnectionError, TimeoutError) as exc:
        raise StoreUnavailableError(f"Qdrant unreachable: {exc}") from exc
    except (ValueError, RuntimeError) as exc:
        raise StoreError(f"Qdrant error: {exc}") from exc


def open_client(settings: Settings) -> tuple[QdrantClient, bool, str]:
    """Open the client of ``settings``: a server when ``qdrant_url`` is set, else local mode.

    Returns:
        (client, is_local, location) where location is the URL, folder or ``":memory:"``.

    Raises:
        StoreUnavailableError: the server is unreachable, or the local folder is locked by
            another process (local mode is single-process).
    """
    if settings.storage.qdrant_url:
        key = (
            settings.storage.qdrant_api_key.get_secret_value()
            if settings.storage.qdrant_api_key
            else None
        )
        url = settings.storage.qdrant_url
        with qdrant_errors():
            client = QdrantClient(url=url, api_key=key, timeout=30, check_compatibility=False)
        try:
            with qdrant_errors():
                client.get_collections()
        except (StoreError, StoreUnavailableError) as exc:
            client.close()
            raise StoreUnavailableError(
                f"cannot reach Qdrant at {url}: {exc.message}", url=url
            ) from exc
        return client, False, url
    location = settings.storage.qdrant_path
    if not location:  # Settings refuses store=qdrant without a URL or a path
        raise StoreUnavailableError("no Qdrant URL or local path configured")
    try:
        if location == ":memory:":
            client = QdrantClient(location=":memory:")
        else:
            client = QdrantClient(path=location, force_disable_check_same_thread=True)
    except RuntimeError as exc:
        if "already accessed by another instance" in str(exc):
            raise StoreUnavailableError(
                f"the Qdrant local folder {location} is in use by another process; local mode "
                "is single-process: stop that process, or run a Qdrant server and set "
                "MEMORY_QDRANT_URL",
                path=location,
            ) from exc
        raise StoreUnavailableError(f"cannot open Qdrant folder {location}: {exc}") from exc
    except (OSError, ValueError) as exc:
        raise StoreUnavailableError(f"cannot open Qdrant folder {location}: {exc}") from exc
    return client, True, location


def _index(client: QdrantClient, collection: str, field: str, schema: Any, local: bool) -> None:
    with warnings.catch_warnings():
        if local:  # local mode ignores payload indexes and warns about it
            warnings.simplefilter("ignore", UserWarning)
        client.create_payload_index(collection, field, field_schema=schema)


def _tenant_index(client: QdrantClient, collection: str, local: bool) -> None:
    keyword = models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True)
    _index(client, collection, "tenant_id", keyword, local)
    for field in _SCOPE_FIELDS:
        _index(client, collection, field, models.PayloadSchemaType.KEYWORD, local)


def _int_index(client: QdrantClient, collection: str, field: str, local: bool) -> None:
    schema = models.IntegerIndexParams(
        type=models.IntegerIndexType.INTEGER, lookup=True, range=True
    )
    _index(client, collection, field, schema, local)


def cluster_layout(settings: Settings, local: bool) -> dict[str, int]:
    """``create_collection`` keyword arguments for a server or cluster: ``shard_number``,
    ``replication_factor`` and ``write_consistency_factor`` from the settings that are set
    (none in local mode, which has no shards). Points are spread over the shards by id (auto
    sharding); a tenant's points are kept together inside each shard by the ``is_tenant``
    payload index."""
    if local:
        return {}
    values = {
        "shard_number": settings.storage.qdrant_shard_number,
        "replication_factor": settings.storage.qdrant_replication_factor,
        "write_consistency_factor": settings.storage.qdrant_write_consistency_factor,
    }
    return {k: int(v) for k, v in values.items() if v is not None}


def ensure_base_collections(
    client: QdrantClient, prefix: str, local: bool, layout: dict[str, int] | None = None
) -> None:
    """Create the ``meta``, ``events``, ``traces`` and ``entities`` collections (vectorless)
    when missing, with the cluster ``layout`` (:func:`cluster_layout`) on a server."""
    opts: dict[str, Any] = dict(layout or {})
    with qdrant_errors():
        meta, events, traces = f"{prefix}_meta", f"{prefix}_events", f"{prefix}_traces"
        entities = f"{prefix}_entities"
        if not client.collection_exists(entities):
            client.create_collection(entities, vectors_config={}, **opts)
            _tenant_index(client, entities, local)
            _index(client, entities, "key", models.PayloadSchemaType.KEYWORD, local)
        if not client.collection_exists(meta):
            client.create_collection(meta, vectors_config={}, **opts)
            _index(client, meta, "tenant_id", models.PayloadSchemaType.KEYWORD, local)
        if not client.collection_exists(events):
            client.create_collection(events, vectors_config={}, **opts)
            _tenant_index(client, events, local)
            _int_index(client, events, "seq", local)
            _int_index(client, events, "at_us", local)
            for field in ("memory_id", "state", "action", "day"):
                _index(client, events, field, models.PayloadSchemaType.KEYWORD, local)
        if not client.collection_exists(traces):
            client.create_collection(traces, vectors_config={}, **opts)
            _tenant_index(client, traces, local)
            _int_index(client, traces, "created_us", local)
            _index(client, traces, "trace_id", models.PayloadSchemaType.KEYWORD, local)
        if not local:  # the retention ordinals' ranges (stores/trace_order.py), also on older
            schema = client.get_collection(traces).payload_schema or {}  # collections
            for field in ("client_seq", "tenant_seq"):
                if field not in schema:
                    _int_index(client, traces, field, local)


def create_memories_collection(
    client: QdrantClient,
    name: str,
    dim: int,
    local: bool,
    layout: dict[str, int] | None = None,
    legs: dict[str, int] | None = None,
) -> None:
    """Create the memories collection: ``dense`` (cosine, ``dim``) + ``keyword`` (sparse, IDF)
    + one cosine vector per extra dense leg in ``legs`` (name -> dim),
    the tenant index (``is_tenant``) and the filter/order indexes, with the cluster ``layout``
    (:func:`cluster_layout`) on a server. No-op when it exists."""
    opts: dict[str, Any] = dict(layout or {})
    with qdrant_errors():
        if client.collection_exists(name):
            if not local and "entity_keys" not in (
                client.get_collection(name).payload_schema or {}
            ):
                # a collection made before the entity index: filters and facets need it
                _index(client, name, "entity_keys", models.PayloadSchemaType.KEYWORD, local)
            return
        client.create_collection(
            name,
            vectors_config={
                name: models.VectorParams(size=size, distance=models.Distance.COSINE)
                for name, size in {DENSE: dim, **(legs or {})}.items()
            },
            sparse_vectors_config={
                KEYWORD: models.SparseVectorParams(modifier=models.Modifier.IDF)
            },
            **opts,
        )
        _tenant_index(client, name, local)
        for field in ("status", "memory_type", "source", "content_hash", "entity_keys"):
            _index(client, name, field, models.PayloadSchemaType.KEYWORD, local)
        _int_index(client, name, "created_us", local)


def dense_size(client: QdrantClient, name: str) -> int | None:
    """Dimension of the ``dense`` vector of an existing collection (None when missing)."""
    with qdrant_errors():
        if not client.collection_exists(name):
            return None
        vectors = client.get_collection(name).config.params.vectors
    if isinstance(vectors, dict) and DENSE in vectors:
        return int(vectors[DENSE].size)
    return None


def scroll_all(
    client: QdrantClient,
    collection: str,
    flt: models.Filter,
    *,
    with_payload: bool | list[str] = True,
    with_vectors: bool | list[str] = False,
    cap: int = SCAN_MAX,
) -> list[models.Record]:
    """Every point matching ``flt`` (by id order), at most ``cap``.

    Raises:
        StoreError: more than ``cap`` points match.
    """
    out: list[models.Record] = []
    offset: Any = None
    with qdrant_errors():
        while True:
            page, offset = client.scroll(
                collection,
                scroll_filter=flt,
                limit=_SCROLL_BATCH,
                offset=offset,
                with_payload=with_payload,
                with_vectors=with_vectors,
            )
            out.extend(page)
            if len(out) > cap:
                raise StoreError(f"more than {cap} points match in {collection}", cap=cap)
            if offset is None:
                return out


def newest_first(
    client: QdrantClient,
    collection: str,
    flt: models.Filter,
    *,
    key: str,
    limit: int,
    after: tuple[int, str] | None,
    ident: Any,
    with_payload: bool | list[str] = True,
) -> list[models.Record]:
    """Up to ``limit`` points ordered by (``key`` desc, ``ident(point)`` desc), keyset-paged.

    Qdrant orders by one payload key only, so ties of ``key`` are completed and ordered here:
    the tie group of the cursor and of the last point read are read whole (``scroll_all``).

    Args:
        key: integer payload key with a range index (microseconds).
        after: cursor ``(key value, id string)``; only points strictly after it are returned.
        ident: point -> comparable id (the second sort key).
        with_payload: payload keys to read (must include ``key`` and what ``ident`` reads).
    """
    must = list(flt.must) if isinstance(flt.must, list) else []
    rows: dict[Any, models.Record] = {}
    upper: dict[str, int] = {}
    with qdrant_errors():
        if after is not None:
            at, last_id = after
            same = models.Filter(must=[*must, us_range(key, gte=at, lte=at)])
            for r in scroll_all(client, collection, same, with_payload=with_payload):
                if str(ident(r)) < last_id:
                    rows[r.id] = r
            upper = {"lt": at}
        body = models.Filter(must=[*must, us_range(key, **upper)] if upper else must)
        page, _ = client.scroll(
            collection,
            scroll_filter=body,
            limit=limit,
            order_by=models.OrderBy(key=key, direction=models.Direction.DESC),
            with_payload=with_payload,
        )
        for r in page:
            rows[r.id] = r
        if len(page) == limit:  # the last tie group may be cut: read it whole
            edge = int((page[-1].payload or {})[key])
            tie = models.Filter(must=[*must, match(key, edge)])
            for r in scroll_all(client, collection, tie, with_payload=with_payload):
                rows[r.id] = r
    ordered = sorted(rows.values(), key=lambda r: (int((r.payload or {})[key]), str(ident(r))))
    return list(reversed(ordered))[:limit]
