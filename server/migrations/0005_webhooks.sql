-- Webhooks: each event about an entry (created, confirmed, invited, erased) is a row
-- written in the same transaction as what it reports, POSTed to the owner's receiver
-- by the server's worker with retries, as the emails are. Written only while a server
-- says it has a receiver (`settings`: webhooks = on), so that nothing about anyone is
-- kept for a receiver that does not exist.
CREATE TABLE webhooks (
    id              TEXT PRIMARY KEY,   -- the webhook-id header, the same on every retry
    type            TEXT NOT NULL,      -- entry.created, entry.confirmed, invitation.sent, entry.erased
    entry_id        TEXT NOT NULL,      -- the entry it is about
    payload         TEXT NOT NULL,      -- the JSON body, as sent
    created_at      BIGINT NOT NULL,
    attempts        BIGINT NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,    -- also a lease while one instance sends it
    delivered_at    BIGINT,
    failed_at       BIGINT,             -- refused (a 4xx), or too many attempts
    last_error      TEXT
);
CREATE INDEX webhooks_due ON webhooks (next_attempt_at);
CREATE INDEX webhooks_entry ON webhooks (entry_id);

-- What the servers say of themselves, for the owner's commands to follow.
CREATE TABLE settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
