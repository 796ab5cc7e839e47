-- The connections a step opened and their TLS handshake times (see StepConnections): NULL for
-- steps stored before, or posted by agents that do not count them.
ALTER TABLE kb_steps_v1
    ADD COLUMN IF NOT EXISTS connections_opened   Nullable(UInt64),
    ADD COLUMN IF NOT EXISTS handshake_p50_ms     Nullable(Float64),
    ADD COLUMN IF NOT EXISTS handshake_p99_ms     Nullable(Float64),
    ADD COLUMN IF NOT EXISTS handshake_max_ms     Nullable(Float64)
