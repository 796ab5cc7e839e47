-- Row versions come from the ClickHouse server's clock, not from each API process's own counter,
-- so the newest write wins however many API replicas write. Inserts leave `version` out.
ALTER TABLE kb_runs_v1 MODIFY COLUMN version UInt64 DEFAULT toUnixTimestamp64Micro(now64(6))
