-- 0001_init: memories, events, traces, embedding_config, admin_audit, with row-level security.
-- Applied by memory_engine.stores.pg_migrate inside one transaction, as the owner role.
-- Grants to the application role live in roles.sql (re-applied on every start).

CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE memories (
    id               uuid        NOT NULL,
    tenant_id        text        NOT NULL,
    user_id          text,
    agent_id         text,
    session_id       text,
    content          text        NOT NULL,
    memory_type      text        NOT NULL
        CHECK (memory_type IN ('episodic', 'semantic', 'procedural')),
    entities         text[]      NOT NULL DEFAULT '{}',
    tags             text[]      NOT NULL DEFAULT '{}',
    importance       double precision NOT NULL DEFAULT 0.5 CHECK (importance BETWEEN 0 AND 1),
    confidence       double precision NOT NULL DEFAULT 1.0 CHECK (confidence BETWEEN 0 AND 1),
    source           text        NOT NULL
        CHECK (source IN ('conversation', 'tool_output', 'manual', 'import')),
    source_ref       text,
    observed_at      timestamptz,
    status           text        NOT NULL
        CHECK (status IN ('active', 'archived', 'superseded', 'deleted')),
    superseded_by    uuid,
    valid_from       timestamptz,
    valid_until      timestamptz,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    last_accessed_at timestamptz,
    access_count     integer     NOT NULL DEFAULT 0,
    version          integer     NOT NULL DEFAULT 1,
    embedding_model  text,
    content_hash     text        NOT NULL DEFAULT '',
    metadata         jsonb       NOT NULL DEFAULT '{}',
    -- Dimension is fixed by ensure_embedding (ALTER COLUMN TYPE vector(dim) + HNSW index).
    embedding        vector,
    -- Keyword terms WITH repetition (term frequency = occurrences); doc_len = cardinality(terms).
    terms            text[]      NOT NULL DEFAULT '{}',
    doc_len          integer     NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, id)
);

CREATE INDEX memories_tenant_status_created
    ON memories (tenant_id, status, created_at DESC, id DESC);
CREATE INDEX memories_tenant_created
    ON memories (tenant_id, created_at DESC, id DESC);
CREATE INDEX memories_terms_gin ON memories USING gin (terms);
-- Dedupe: at most one ACTIVE memory per (tenant, user, content_hash); empty hashes are exempt.
CREATE UNIQUE INDEX memories_active_content_hash
    ON memories (tenant_id, (coalesce(user_id, '')), content_hash)
    WHERE status = 'active' AND content_hash <> '';

CREATE TABLE events (
    id          bigserial   PRIMARY KEY,
    tenant_id   text        NOT NULL,
    user_id     text,
    agent_id    text,
    session_id  text,
    memory_id   uuid,
    action      text        NOT NULL,
    actor       text        NOT NULL,
    at          timestamptz NOT NULL DEFAULT now(),
    before      jsonb,
    after       jsonb,
    reason      text,
    request_id  text,
    details     jsonb       NOT NULL DEFAULT '{}'
);
CREATE INDEX events_tenant_id ON events (tenant_id, id DESC);
CREATE INDEX events_tenant_memory ON events (tenant_id, memory_id, id);
CREATE INDEX events_tenant_at ON events (tenant_id, at);

CREATE TABLE traces (
    id          uuid        NOT NULL,
    tenant_id   text        NOT NULL,
    user_id     text,
    agent_id    text,
    session_id  text,
    created_at  timestamptz NOT NULL,
    query       text        NOT NULL,
    returned    integer     NOT NULL DEFAULT 0,
    payload     jsonb       NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX traces_tenant_created ON traces (tenant_id, created_at DESC, id DESC);

-- Single row: the embedding model and dimension every stored vector was made with.
CREATE TABLE embedding_config (
    singleton   boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    model       text        NOT NULL,
    dim         integer     NOT NULL CHECK (dim > 0),
    recorded_at timestamptz NOT NULL DEFAULT now()
);

-- Who read across tenants, when and why (owner role only; the app role has no access).
CREATE TABLE admin_audit (
    id          bigserial   PRIMARY KEY,
    actor       text        NOT NULL,
    at          timestamptz NOT NULL DEFAULT now(),
    action      text        NOT NULL,
    reason      text        NOT NULL,
    details     jsonb       NOT NULL DEFAULT '{}'
);

-- Row-level security on every tenant table; FORCE so the table owner is not exempt either.
-- current_setting(..., true) is NULL when unset: no rows visible, no rows writable.
ALTER TABLE memories ENABLE ROW LEVEL SECURITY;
ALTER TABLE memories FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON memories
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE events ENABLE ROW LEVEL SECURITY;
ALTER TABLE events FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON events
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE traces ENABLE ROW LEVEL SECURITY;
ALTER TABLE traces FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON traces
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
