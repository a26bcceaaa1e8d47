-- Invitations, sent by the owner in waves (`lathe-site waitlist invite`). A wave is
-- numbered in the order it was made and records when, how many entries it took, the
-- interest it was limited to (if any) and the owner's letter; `sent` and `failed` count
-- its emails as the outbox worker finishes them (the outbox's own rows go a day after).
-- An invited entry has the status 'invited', names its wave and when it was invited; only
-- confirmed entries are invited, each once.
CREATE TABLE waves (
    number     BIGINT PRIMARY KEY,
    created_at BIGINT NOT NULL,
    size       BIGINT NOT NULL,
    interest   TEXT,
    subject    TEXT NOT NULL,
    body       TEXT NOT NULL,
    sent       BIGINT NOT NULL DEFAULT 0,
    failed     BIGINT NOT NULL DEFAULT 0
);
ALTER TABLE waitlist ADD COLUMN invited_at BIGINT;
ALTER TABLE waitlist ADD COLUMN wave BIGINT;
-- An invitation's wave, whose letter it carries.
ALTER TABLE outbox ADD COLUMN wave BIGINT;
