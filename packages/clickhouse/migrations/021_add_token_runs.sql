-- Share tokens: the runs a read-only share link may show (one run, or the runs of one comparison).
-- Empty for every other token.
ALTER TABLE kb_tokens_v1 ADD COLUMN IF NOT EXISTS runs Array(String) DEFAULT []
