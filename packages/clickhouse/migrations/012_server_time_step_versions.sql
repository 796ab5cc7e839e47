-- As for runs: the server's clock orders step window posts from any API replica.
ALTER TABLE kb_steps_v1 MODIFY COLUMN version UInt64 DEFAULT toUnixTimestamp64Micro(now64(6))
