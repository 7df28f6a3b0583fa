-- A purge also erases the reasons of the memory's events (an update or delete reason may quote
-- the memory's text, or hold a value its PII policy kept): every event of the memory except its
-- own 'purge' and 'purge_proof' events gets reason '[purged]', in the same call that blanks the
-- snapshots (memory_engine/stores/redaction.py applies the same rule to Qdrant). SECURITY
-- DEFINER as before; it still refuses any tenant other than the transaction's app.tenant_id.

CREATE OR REPLACE FUNCTION redact_memory_events(p_tenant text, p_memory uuid) RETURNS integer
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
        after = CASE WHEN jsonb_typeof(after) = 'object' THEN after || patch ELSE after END,
        reason = CASE WHEN action IN ('purge', 'purge_proof') OR reason IS NULL THEN reason
                      ELSE '[purged]' END
    WHERE tenant_id = p_tenant AND memory_id = p_memory
      AND (coalesce(before ->> 'content', '[purged]') <> '[purged]'
           OR coalesce(after ->> 'content', '[purged]') <> '[purged]'
           OR (action NOT IN ('purge', 'purge_proof') AND reason IS NOT NULL
               AND reason <> '[purged]'));
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$fn$;
