-- 0006_vector_legs: a second dense leg per memory (the multilingual one), beside `embedding`.
-- `embedding_ml` stays untyped until the leg is recorded: ensure_leg fixes it to vector(dim)
-- and builds its HNSW index (cosine), as ensure_embedding does for `embedding`. Existing rows
-- keep NULL until `memory-engine reembed --leg dense_ml` fills them; searches use the leg only
-- once its row in embedding_legs says 'ready'.
ALTER TABLE memories ADD COLUMN IF NOT EXISTS embedding_ml vector;

CREATE TABLE IF NOT EXISTS embedding_legs (
    leg          text PRIMARY KEY,
    model        text NOT NULL CHECK (model <> ''),
    dim          integer NOT NULL CHECK (dim BETWEEN 1 AND 16000),
    state        text NOT NULL DEFAULT 'filling' CHECK (state IN ('ready', 'filling')),
    recorded_at  timestamptz NOT NULL DEFAULT now()
);
