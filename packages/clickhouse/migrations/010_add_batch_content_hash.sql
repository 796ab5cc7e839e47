-- What a batch contained, so a batch_id reused for different events is told apart from a replay.
ALTER TABLE kb_batches_v1
    ADD COLUMN IF NOT EXISTS content_hash String DEFAULT '' AFTER events
