-- Confirmed sign-ups (double opt-in), the emails waiting to go, and the record of
-- erasures. Still one schema for SQLite and PostgreSQL.
--
-- An entry's status: 'unconfirmed' (stored by a server without --smtp, as before),
-- 'pending' (an email asked its owner to confirm) or 'confirmed'. Its id is random and
-- names it in the emails' links, never the address (filled in by the server at start for
-- entries older than this migration). The nonces are what the links must match: the
-- confirmation's is cleared when it is used.
ALTER TABLE waitlist ADD COLUMN id TEXT;
ALTER TABLE waitlist ADD COLUMN status TEXT NOT NULL DEFAULT 'unconfirmed';
ALTER TABLE waitlist ADD COLUMN confirmed_at BIGINT;
ALTER TABLE waitlist ADD COLUMN confirm_nonce TEXT;
ALTER TABLE waitlist ADD COLUMN manage_nonce TEXT;
-- Sign-up, confirmation or email sent: the 2-year retention counts from the last.
ALTER TABLE waitlist ADD COLUMN last_interaction_at BIGINT;
UPDATE waitlist SET last_interaction_at = COALESCE(last_repeat_at, created_at);
CREATE UNIQUE INDEX waitlist_id ON waitlist (id);

-- Each email to send, written in the sign-up's own transaction, so that an
-- acknowledged sign-up never lacks its email; sent by the server's outbox worker,
-- tried again with backoff while the mail server is down or answers 4xx.
CREATE TABLE outbox (
    id              TEXT PRIMARY KEY,
    email_key       TEXT NOT NULL,      -- whose entry (erased with it)
    kind            TEXT NOT NULL,      -- confirm or already
    created_at      BIGINT NOT NULL,
    attempts        BIGINT NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,    -- also a lease while one instance sends it
    sent_at         BIGINT,
    failed_at       BIGINT,             -- refused for good (a 5xx), or too many attempts
    last_error      TEXT
);
CREATE INDEX outbox_due ON outbox (next_attempt_at);
CREATE INDEX outbox_address ON outbox (email_key, created_at);

-- Who erased an entry, and when: nothing about whose entry it was.
CREATE TABLE erasures (
    erased_at BIGINT NOT NULL,
    erased_by TEXT NOT NULL             -- visitor, owner, unconfirmed or retention
);
