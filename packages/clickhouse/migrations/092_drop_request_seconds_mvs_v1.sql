-- The views that fed both rollups from kb_requests_v1: nothing inserts there any more (093 feeds
-- the same rollups from kb_request_events_v1).
DROP VIEW IF EXISTS kb_request_seconds_mv_v1;
DROP VIEW IF EXISTS kb_request_name_seconds_mv_v1
