# No telemetry: the machines this runs on reach only package registries, and CI logs stay clean.
export TURBO_TELEMETRY_DISABLED=1 NEXT_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
