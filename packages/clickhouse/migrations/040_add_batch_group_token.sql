-- The insert a batch went in with, when the embedded engine coalesced several batches into one
-- (the group's deduplication token; '' for a batch inserted alone). The ledger rows of a group are
-- written before its events, so a process that dies between the two leaves rows whose events are
-- missing: the next process finds that group by its token and removes them (reconcileLedger).
ALTER TABLE kb_batches_v1
    ADD COLUMN IF NOT EXISTS group_token String DEFAULT '' AFTER content_hash
