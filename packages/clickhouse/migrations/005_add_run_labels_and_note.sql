-- Labels ("baseline", "flaky") and a note people add for the performance review.
ALTER TABLE kb_runs_v1
    ADD COLUMN IF NOT EXISTS labels Array(String) AFTER tags,
    ADD COLUMN IF NOT EXISTS note String DEFAULT '' AFTER labels
