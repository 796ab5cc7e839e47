-- Runs deleted (DELETE /runs/{id}, retention): one row each, kept after the run's rows are gone.
-- Written before any of the run's rows are deleted, so every API process — replicas included —
-- refuses the run's later batches, steps and fleet writes from storage, not from one process's
-- memory; and a deletion cut short (a full disk, a crash) is finished by the retention sweep.
CREATE TABLE IF NOT EXISTS kb_deleted_runs_v1
(
    run_id     UUID,
    deleted_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY run_id
