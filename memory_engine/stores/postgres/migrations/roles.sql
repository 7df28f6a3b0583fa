-- Application role and its grants. Idempotent; re-applied on every start (after the numbered
-- migrations, under the same advisory lock) so a changed db_app_role or a new table is covered.
-- The role name comes from set_config('memory_engine.app_role', <name>, true); identifiers are
-- quoted with format('%I').
--
-- The engine's pooled connections LOG IN as this role (they used to log in as the owner and
-- SET ROLE to a NOLOGIN role, which any statement could undo with RESET ROLE). It must not be
-- a superuser, bypass row-level security or be a member of any role: then no statement on its
-- connection can become another role. A role of an earlier version (NOLOGIN) gains LOGIN here.
DO $roles$
DECLARE
    app_role text := current_setting('memory_engine.app_role');
    fn regprocedure;
BEGIN
    IF app_role IS NULL OR app_role = '' THEN
        RAISE EXCEPTION 'memory_engine.app_role is not set';
    END IF;
    IF app_role = current_user THEN
        RAISE EXCEPTION 'the application role % must not be the owner login', app_role;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = app_role) THEN
        EXECUTE format('CREATE ROLE %I LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE '
                       'NOREPLICATION', app_role);
    ELSIF NOT (SELECT rolcanlogin FROM pg_roles WHERE rolname = app_role) THEN
        EXECUTE format('ALTER ROLE %I LOGIN', app_role);
    END IF;
    IF (SELECT rolsuper OR rolbypassrls OR rolcreaterole OR rolreplication
        FROM pg_roles WHERE rolname = app_role) THEN
        RAISE EXCEPTION 'the application role % is a superuser or has BYPASSRLS, CREATEROLE or '
                        'REPLICATION; use a plain LOGIN role', app_role
            USING ERRCODE = '42501';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member
               WHERE r.rolname = app_role) THEN
        RAISE EXCEPTION 'the application role % is a member of another role (SET ROLE could '
                        'reach it); revoke its memberships', app_role
            USING ERRCODE = '42501';
    END IF;
    -- The owner must be able to SET ROLE to it (superusers always can). PostgreSQL 16 grants
    -- a role created by a CREATEROLE user back to its creator with ADMIN but without SET, so
    -- check the SET privilege itself there and grant it explicitly.
    IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        IF current_setting('server_version_num')::int >= 160000 THEN
            IF NOT pg_has_role(current_user, app_role, 'SET') THEN
                EXECUTE format('GRANT %I TO %I WITH SET TRUE, INHERIT FALSE',
                               app_role, current_user);
            END IF;
        ELSIF NOT pg_has_role(current_user, app_role, 'MEMBER') THEN
            EXECUTE format('GRANT %I TO %I', app_role, current_user);
        END IF;
    END IF;

    -- The one audited cross-tenant read (admin_tenant_counts) runs as the owner, which FORCE
    -- row-level security also binds. This policy lets only the owner read across tenants, and
    -- only inside a transaction that set memory_engine.admin_read = 'on'. It is TO the owner
    -- role, so it never applies to the application role.
    EXECUTE 'DROP POLICY IF EXISTS admin_read ON memories';
    EXECUTE format('CREATE POLICY admin_read ON memories FOR SELECT TO %I '
                   'USING (current_setting(''memory_engine.admin_read'', true) = ''on'')',
                   current_user);
    -- The same for events: admin_tenant_ids (memory-engine copy --all) also finds tenants
    -- whose memories were all purged.
    EXECUTE 'DROP POLICY IF EXISTS admin_read ON events';
    EXECUTE format('CREATE POLICY admin_read ON events FOR SELECT TO %I '
                   'USING (current_setting(''memory_engine.admin_read'', true) = ''on'')',
                   current_user);

    EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', current_schema(), app_role);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON memories TO %I', app_role);
    EXECUTE format('GRANT SELECT, INSERT, DELETE ON traces TO %I', app_role);
    -- BM25 statistics and postings (0002), written by the triggers on memories as the app role.
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON keyword_corpus, keyword_df, '
                   'keyword_postings TO %I', app_role);
    -- Entities and their links (0004), written with the memories by the app role.
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON entities, entity_links TO %I',
                   app_role);
    -- Events are append-only for the application.
    EXECUTE format('GRANT SELECT, INSERT ON events TO %I', app_role);
    EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON events FROM %I', app_role);
    EXECUTE format('GRANT USAGE ON SEQUENCE events_id_seq TO %I', app_role);
    EXECUTE format('GRANT SELECT ON embedding_config TO %I', app_role);
    -- Extra dense legs (0006): recorded by the owner (a schema change), read by the app role.
    IF to_regclass('embedding_legs') IS NOT NULL THEN
        EXECUTE format('GRANT SELECT ON embedding_legs TO %I', app_role);
    END IF;
    EXECUTE format('REVOKE ALL ON admin_audit, schema_migrations FROM %I', app_role);

    -- Administrative functions: every SECURITY DEFINER function of the schema (outside an
    -- extension) runs with the owner's rights, so only the owner may call it (PostgreSQL grants
    -- EXECUTE on a new function to PUBLIC). redact_memory_events (0003) is one: purge and
    -- redaction call it on the owner's connection.
    FOR fn IN
        SELECT p.oid::regprocedure FROM pg_proc p
        WHERE p.prosecdef AND p.pronamespace = current_schema()::regnamespace
          AND pg_has_role(current_user, p.proowner, 'USAGE')
          AND NOT EXISTS (SELECT 1 FROM pg_depend d
                          WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                            AND d.deptype = 'e')
    LOOP
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', fn);
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM %I', fn, app_role);
    END LOOP;
END
$roles$;
