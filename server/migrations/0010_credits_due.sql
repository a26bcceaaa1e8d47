-- A referral's credit is given after the friend's confirmation commits, by a worker that
-- gives the due ones in batches (server/src/store/credits.rs; docs/server.md, "What a
-- credit costs"). `credit_due` is 1 from the confirmation of an entry that signed up
-- through a link until its referrer has been credited (or found owed nothing); the
-- partial index holds only those, oldest first.
ALTER TABLE waitlist ADD COLUMN credit_due INTEGER;
CREATE INDEX waitlist_credit_due ON waitlist (confirmed_at) WHERE credit_due IS NOT NULL;
