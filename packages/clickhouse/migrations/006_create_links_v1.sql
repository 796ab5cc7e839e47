-- Short links: a code that resolves to a view's full URL path (its state lives in the query string).
CREATE TABLE IF NOT EXISTS kb_links_v1
(
    code       String,
    path       String,
    created_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY code
