-- The agent's own health per step: whether it held the configured load (see StepHealth).
ALTER TABLE kb_steps_v1
    ADD COLUMN IF NOT EXISTS target                  Nullable(Float64),
    ADD COLUMN IF NOT EXISTS in_flight_mean          Nullable(Float64),
    ADD COLUMN IF NOT EXISTS late_sends              Nullable(UInt64),
    ADD COLUMN IF NOT EXISTS missed_sends            Nullable(UInt64),
    ADD COLUMN IF NOT EXISTS agent_cpu_cores         Nullable(Float64),
    ADD COLUMN IF NOT EXISTS event_loop_delay_p99_ms Nullable(Float64),
    ADD COLUMN IF NOT EXISTS generator_limited       Nullable(UInt8),
    ADD COLUMN IF NOT EXISTS health_reason           Nullable(String)
