-- 0008_trace_order: insertion ordinals of search traces, so the retention bounds are kept
-- with index range deletes instead of an ORDER BY ... OFFSET scan of up to 20,000 traces on
-- every search. `client_seq` numbers the traces of one client (tenant, user and agent id),
-- `tenant_seq` those of the tenant; both only grow. A client holds at most
-- (newest client_seq - oldest client_seq + 1) traces, so deleting every trace with
-- client_seq <= newest - keep leaves at most `keep` (fewer when some were deleted in between).
-- The owner backfills past row-level security (FORCE is restored below).
ALTER TABLE traces NO FORCE ROW LEVEL SECURITY;
ALTER TABLE traces ADD COLUMN IF NOT EXISTS client_seq bigint;
ALTER TABLE traces ADD COLUMN IF NOT EXISTS tenant_seq bigint;

UPDATE traces t SET client_seq = o.c, tenant_seq = o.s
FROM (
    SELECT tenant_id, id,
           row_number() OVER (PARTITION BY tenant_id, user_id, agent_id
                              ORDER BY created_at, id) AS c,
           row_number() OVER (PARTITION BY tenant_id ORDER BY created_at, id) AS s
    FROM traces
) o
WHERE t.tenant_id = o.tenant_id AND t.id = o.id;

CREATE INDEX IF NOT EXISTS traces_client_seq
    ON traces (tenant_id, user_id, agent_id, client_seq);
CREATE INDEX IF NOT EXISTS traces_tenant_seq ON traces (tenant_id, tenant_seq);

ALTER TABLE traces FORCE ROW LEVEL SECURITY;
