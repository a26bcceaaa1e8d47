-- The waitlist: one row per email address (compared without case), kept up to date by
-- later sign-ups with the same address. Written for both SQLite and PostgreSQL: text,
-- and 64-bit integers for times (milliseconds since the Unix epoch, UTC) and counts.
CREATE TABLE waitlist (
    email_key      TEXT PRIMARY KEY,        -- the address in lower case
    email          TEXT NOT NULL,           -- the address as typed
    name           TEXT NOT NULL,
    company        TEXT NOT NULL,
    role           TEXT NOT NULL,
    interest       TEXT NOT NULL,           -- general, enterprise, developer, partnership or press
    message        TEXT NOT NULL,
    privacy_notice TEXT NOT NULL,           -- the version of the privacy notice shown
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL,
    updates        BIGINT NOT NULL DEFAULT 0 -- how many later sign-ups replaced it
);
