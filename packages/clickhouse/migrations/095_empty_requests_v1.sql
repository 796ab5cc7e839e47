-- kb_requests_v1's rows are all in kb_request_events_v1 (091, recorded before this runs) and
-- nothing writes there any more: its disk is given back. The empty table stays, so the
-- migrations before 091 that name it still apply on a new install.
TRUNCATE TABLE IF EXISTS kb_requests_v1
