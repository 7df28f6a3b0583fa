-- 0004_entities: the entities memories name, per tenant, and the memory <-> entity links.
--
-- entities      one row per (tenant, normalised key): the key made by
--               memory_engine.entities.entity_key ("ACME", "ＡＣＭＥ", "ACME Inc." -> "acme"),
--               the display name as first seen, the kind when known. The id is
--               uuid5(tenant, key) (memory_engine.entities.entity_id), computed by the engine.
-- entity_links  one row per (memory, entity), written in the transaction that writes the
--               memory (memory_engine/stores/postgres/entities.py); position = the entity's
--               place in the memory's entities. Deleting a memory deletes its links (FK
--               cascade, and explicitly by the purge, which also drops entities left unlinked).
--
-- Existing memories are linked by the store when this migration is applied (the key is a
-- Python function, so the backfill runs there: PostgresStore, entities.backfill_links).

CREATE TABLE entities (
    id         uuid        NOT NULL,
    tenant_id  text        NOT NULL,
    key        text        NOT NULL CHECK (key <> ''),
    name       text        NOT NULL,
    kind       text,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, key)
);

CREATE TABLE entity_links (
    tenant_id  text     NOT NULL,
    memory_id  uuid     NOT NULL,
    entity_id  uuid     NOT NULL,
    position   smallint NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, memory_id, entity_id),
    FOREIGN KEY (tenant_id, memory_id) REFERENCES memories (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, entity_id) REFERENCES entities (tenant_id, id) ON DELETE CASCADE
);
-- Memories of an entity, and counts per entity.
CREATE INDEX entity_links_entity ON entity_links (tenant_id, entity_id, memory_id);

-- Row-level security, exactly like memories: FORCE so the owner is bound too.
ALTER TABLE entities ENABLE ROW LEVEL SECURITY;
ALTER TABLE entities FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON entities
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE entity_links ENABLE ROW LEVEL SECURITY;
ALTER TABLE entity_links FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON entity_links
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
