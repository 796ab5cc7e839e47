-- Each request's name (endpoint / request label: `search`, `GET /users/{id}`), '' for none: every
-- row stored before names existed reads as ''. LowCardinality: a run holds at most a few hundred
-- names (the API's KNEEBOARD_MAX_NAMES_PER_RUN), so each row keeps a small dictionary index.
ALTER TABLE kb_requests_v1
    ADD COLUMN IF NOT EXISTS name LowCardinality(String) DEFAULT ''
