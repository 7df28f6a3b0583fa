-- 0003_lifecycle: verified deletion. Events stay append-only for the application role (it has
-- no UPDATE on events); the one exception is this function, which blanks the content of one
-- purged memory in its events' before/after snapshots (memory_engine/stores/redaction.py lists
-- the same fields). SECURITY DEFINER runs it as the owner; it refuses any tenant other than
-- the transaction's app.tenant_id, so it cannot reach another tenant's rows.

CREATE FUNCTION redact_memory_events(p_tenant text, p_memory uuid) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $fn$
DECLARE
    patch constant jsonb := jsonb_build_object(
        'content', '[purged]', 'entities', '[]'::jsonb, 'tags', '[]'::jsonb,
        'metadata', '{}'::jsonb, 'source_ref', NULL, 'content_hash', '');
    n integer;
BEGIN
    IF p_tenant IS NULL OR p_tenant IS DISTINCT FROM current_setting('app.tenant_id', true) THEN
        RAISE EXCEPTION 'redact_memory_events: tenant % is not the transaction tenant', p_tenant
            USING ERRCODE = '42501';
    END IF;
    UPDATE events SET
        before = CASE WHEN jsonb_typeof(before) = 'object' THEN before || patch ELSE before END,
        after = CASE WHEN jsonb_typeof(after) = 'object' THEN after || patch ELSE after END
    WHERE tenant_id = p_tenant AND memory_id = p_memory
      AND (coalesce(before ->> 'content', '[purged]') <> '[purged]'
           OR coalesce(after ->> 'content', '[purged]') <> '[purged]');
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$fn$;
