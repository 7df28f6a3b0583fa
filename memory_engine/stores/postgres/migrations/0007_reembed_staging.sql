-- 0007_reembed_staging: the staging column of `memory-engine reembed` when it switches the
-- primary embedder. The new model's vectors are written here (resumably: a re-run fills the
-- rows still NULL) while searches keep using `embedding`; the switch then rewrites
-- `embedding` from it in one transaction (the HNSW index rebuilt) and clears it again.
ALTER TABLE memories ADD COLUMN IF NOT EXISTS embedding_next vector;
