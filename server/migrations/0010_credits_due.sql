-- A referral's credit is given after the friend's confirmation commits, by a worker that
-- gives the due ones in batches (server/src/store/credits.rs; docs/server.md, "When it is
-- given"). A row here from the confirmation of an entry that signed up through a link
-- (the friend, by its address's key, and its referrer's id) until the worker, or the
-- friend's erasure, has given the credit (or found it owed nothing). A table of its own,
-- not a column of `waitlist`: on PostgreSQL, clearing an indexed column rewrote the
-- friend's whole row with an entry in every index of `waitlist`; a row here is inserted
-- and deleted with one.
CREATE TABLE credits_due (
    email_key TEXT PRIMARY KEY,
    referrer  TEXT NOT NULL,
    due_at    BIGINT NOT NULL
);
