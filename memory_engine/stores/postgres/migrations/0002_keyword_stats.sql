-- 0002_keyword_stats: BM25 statistics and a term -> memory index kept by triggers.
--
-- Why: the keyword leg computed N, avgdl and every df by scanning the tenant's rows per query,
-- and the GIN index on memories.terms is never used by the application role: under row-level
-- security the planner only turns LEAKPROOF operators into index conditions, and the array
-- operators (&&, @>) are not leakproof (marking them so needs a superuser). Text equality is
-- leakproof, so a btree on (tenant_id, term) works under RLS.
--
-- keyword_corpus   per (tenant, status): n rows and the sum of doc_len   -> N and avgdl
-- keyword_df       per (tenant, term, status): rows containing the term  -> df
-- keyword_postings per (tenant, term, memory): one row per distinct term of a memory, with
--                  the row's status, the term's tf and the row's doc_len (index-only scoring)
--
-- Maintained by statement-level AFTER triggers on memories (transition tables), so every
-- INSERT/UPDATE/DELETE of memories, by any code path, changes the statistics in the same
-- transaction. Counters that drop to zero are kept (harmless; bounded by the vocabulary).
-- Every trigger first takes pg_advisory_xact_lock(KEYWORD_LOCK_NS, hashtext(tenant_id)) for
-- each tenant it touches (sorted), so concurrent writers of one tenant update the counters one
-- after the other (no lost updates, no deadlocks between counter rows); PostgresStore takes the
-- same lock at the start of every write transaction.
-- The GIN index on memories.terms is dropped: nothing can use it under RLS.

-- Exempt the owner from RLS while backfilling (FORCE is restored below); this also takes the
-- table lock first, so no write slips between the backfill and the triggers.
ALTER TABLE memories NO FORCE ROW LEVEL SECURITY;

CREATE TABLE keyword_corpus (
    tenant_id text   NOT NULL,
    status    text   NOT NULL,
    n         bigint NOT NULL DEFAULT 0,
    sum_len   bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, status)
);

CREATE TABLE keyword_df (
    tenant_id text   NOT NULL,
    term      text   NOT NULL,
    status    text   NOT NULL,
    df        bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, term, status)
);

CREATE TABLE keyword_postings (
    tenant_id text     NOT NULL,
    term      text     NOT NULL,
    memory_id uuid     NOT NULL,
    status    text     NOT NULL,
    tf        integer  NOT NULL,
    doc_len   integer  NOT NULL,
    -- status, tf and doc_len are copies of the row's values, so BM25 contributions come from
    -- index-only scans; deletes know the old row's terms and use this key too.
    PRIMARY KEY (tenant_id, term, memory_id) INCLUDE (status, tf, doc_len)
);

-- Backfill from the existing rows.
INSERT INTO keyword_corpus (tenant_id, status, n, sum_len)
SELECT tenant_id, status, count(*), coalesce(sum(doc_len), 0)
FROM memories GROUP BY tenant_id, status;

INSERT INTO keyword_df (tenant_id, term, status, df)
SELECT tenant_id, term, status, count(*)
FROM (SELECT DISTINCT m.tenant_id, m.id, m.status, t.term
      FROM memories m, unnest(m.terms) AS t(term)) x
GROUP BY tenant_id, term, status;

INSERT INTO keyword_postings (tenant_id, term, memory_id, status, tf, doc_len)
SELECT m.tenant_id, t.term, m.id, m.status, count(*), m.doc_len
FROM memories m, unnest(m.terms) AS t(term)
GROUP BY m.tenant_id, t.term, m.id, m.status, m.doc_len;

DROP INDEX IF EXISTS memories_terms_gin;

-- ------------------------------------------------------------------ trigger functions
-- A change is a set of signed rows: -1 for a row's old (tenant, status, doc_len, terms), +1 for
-- the new ones. keyword_apply() turns them into counter and posting changes; the three
-- triggers only collect them. Lock namespace 7241930 = KEYWORD_LOCK_NS in pg_keyword.py.
-- Functions run with the caller's rights (the app role), so RLS applies to every statement.

CREATE TYPE keyword_delta AS (
    tenant_id text, id uuid, status text, doc_len integer, terms text[], sign integer
);

CREATE FUNCTION keyword_apply(d keyword_delta[]) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
    has_pos boolean;
    has_neg boolean;
BEGIN
    IF coalesce(cardinality(d), 0) = 0 THEN
        RETURN;
    END IF;
    PERFORM pg_advisory_xact_lock(7241930, hashtext(t.tenant_id))
    FROM (SELECT DISTINCT x.tenant_id FROM unnest(d) x ORDER BY x.tenant_id) t;
    SELECT bool_or(x.sign > 0), bool_or(x.sign < 0) INTO has_pos, has_neg FROM unnest(d) x;

    INSERT INTO keyword_corpus AS c (tenant_id, status, n, sum_len)
    SELECT x.tenant_id, x.status, sum(x.sign), coalesce(sum(x.sign * x.doc_len), 0)
    FROM unnest(d) x GROUP BY x.tenant_id, x.status ORDER BY x.tenant_id, x.status
    ON CONFLICT (tenant_id, status)
    DO UPDATE SET n = c.n + EXCLUDED.n, sum_len = c.sum_len + EXCLUDED.sum_len;

    -- df counts a row once per distinct term; a term's -1 and +1 of one row cancel.
    INSERT INTO keyword_df AS k (tenant_id, term, status, df)
    SELECT y.tenant_id, y.term, y.status, sum(y.sign)
    FROM (SELECT DISTINCT x.tenant_id, x.id, x.status, x.sign, t.term
          FROM unnest(d) x, unnest(x.terms) AS t(term)) y
    GROUP BY y.tenant_id, y.term, y.status HAVING sum(y.sign) <> 0
    ORDER BY y.tenant_id, y.term, y.status
    ON CONFLICT (tenant_id, term, status) DO UPDATE SET df = k.df + EXCLUDED.df;

    -- Postings: drop the old rows' entries, then add the new rows' (tf = occurrences).
    IF has_neg THEN
        DELETE FROM keyword_postings p
        USING (SELECT DISTINCT x.tenant_id, x.id, t.term
               FROM unnest(d) x, unnest(x.terms) AS t(term) WHERE x.sign < 0) g
        WHERE p.tenant_id = g.tenant_id AND p.term = g.term AND p.memory_id = g.id;
    END IF;
    IF has_pos THEN
        INSERT INTO keyword_postings (tenant_id, term, memory_id, status, tf, doc_len)
        SELECT x.tenant_id, t.term, x.id, x.status, count(*), x.doc_len
        FROM unnest(d) x, unnest(x.terms) AS t(term) WHERE x.sign > 0
        GROUP BY x.tenant_id, t.term, x.id, x.status, x.doc_len;
    END IF;
END
$fn$;

CREATE FUNCTION keyword_stats_insert() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
    PERFORM keyword_apply(ARRAY(
        SELECT ROW(r.tenant_id, r.id, r.status, r.doc_len, r.terms, 1)::keyword_delta
        FROM new_rows r));
    RETURN NULL;
END
$fn$;

CREATE FUNCTION keyword_stats_delete() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
    PERFORM keyword_apply(ARRAY(
        SELECT ROW(r.tenant_id, r.id, r.status, r.doc_len, r.terms, -1)::keyword_delta
        FROM old_rows r));
    RETURN NULL;
END
$fn$;

-- Only rows whose tenant, status or terms changed count (access counts, content-only edits
-- and the like change nothing here).
CREATE FUNCTION keyword_stats_update() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
    PERFORM keyword_apply(ARRAY(
        SELECT ROW(c.tenant_id, c.id, c.status, c.doc_len, c.terms, c.sign)::keyword_delta
        FROM old_rows o JOIN new_rows n ON n.id = o.id
        CROSS JOIN LATERAL (
            VALUES (o.tenant_id, o.id, o.status, o.doc_len, o.terms, -1),
                   (n.tenant_id, n.id, n.status, n.doc_len, n.terms, 1)
        ) AS c(tenant_id, id, status, doc_len, terms, sign)
        WHERE (o.tenant_id, o.status, o.doc_len, o.terms)
              IS DISTINCT FROM (n.tenant_id, n.status, n.doc_len, n.terms)));
    RETURN NULL;
END
$fn$;

CREATE TRIGGER memories_keyword_insert AFTER INSERT ON memories
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION keyword_stats_insert();
CREATE TRIGGER memories_keyword_update AFTER UPDATE ON memories
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION keyword_stats_update();
CREATE TRIGGER memories_keyword_delete AFTER DELETE ON memories
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION keyword_stats_delete();

-- Row-level security on the new tenant tables, like every tenant table.
ALTER TABLE memories FORCE ROW LEVEL SECURITY;
ALTER TABLE keyword_corpus ENABLE ROW LEVEL SECURITY;
ALTER TABLE keyword_corpus FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON keyword_corpus
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
ALTER TABLE keyword_df ENABLE ROW LEVEL SECURITY;
ALTER TABLE keyword_df FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON keyword_df
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
ALTER TABLE keyword_postings ENABLE ROW LEVEL SECURITY;
ALTER TABLE keyword_postings FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON keyword_postings
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
