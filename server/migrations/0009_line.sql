-- The line and referrals (lathe_core::line, lathe_core::referral; docs/server.md, "The
-- line"). Still one schema for SQLite and PostgreSQL.
--
-- Each entry has a random referral code (its share link's `?ref=`; filled in by the
-- server at start for older entries) and, when it signed up through another entry's link,
-- that entry's id. A confirmed entry gets the next confirmation number (`line_number`,
-- never reused); each friend credited to it takes `--places-per-referral` off its key.
-- While it stands in the line (confirmed, not invited), `line_key` is its number less the
-- places its credits are worth, and `neg_credits` is -credits: the line is the order of
-- (line_key, neg_credits, line_number), the core's own key, read by one index range.
ALTER TABLE waitlist ADD COLUMN referral_code TEXT;
ALTER TABLE waitlist ADD COLUMN referred_by TEXT;
ALTER TABLE waitlist ADD COLUMN line_number BIGINT;
ALTER TABLE waitlist ADD COLUMN credits BIGINT NOT NULL DEFAULT 0;
ALTER TABLE waitlist ADD COLUMN line_key BIGINT;
ALTER TABLE waitlist ADD COLUMN neg_credits BIGINT NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX waitlist_referral_code ON waitlist (referral_code);
CREATE UNIQUE INDEX waitlist_line_number ON waitlist (line_number);
CREATE INDEX waitlist_referred_by ON waitlist (referred_by);
CREATE INDEX waitlist_line ON waitlist (line_key, neg_credits, line_number)
    WHERE line_key IS NOT NULL;

-- Entries confirmed before this migration are numbered in the order they were confirmed;
-- those still waiting stand in the line in that order.
UPDATE waitlist SET line_number = numbered.n
FROM (
    SELECT email_key, ROW_NUMBER() OVER (ORDER BY confirmed_at, email_key) AS n
    FROM waitlist WHERE confirmed_at IS NOT NULL
) AS numbered
WHERE waitlist.email_key = numbered.email_key;
UPDATE waitlist SET line_key = line_number WHERE status = 'confirmed';

-- How many entries stand in the line with a key in each bucket of 4,096 keys (the
-- bucket is the key divided by 4,096, rounded down), spread over a few rows (`stripe`)
-- so that concurrent confirmations, whose keys all fall in the last bucket, do not wait
-- for one row. A place is one more than the sum over the buckets before its own, plus
-- the keys before it inside its own bucket: a few thousand small rows and at most a
-- bucket of the index, where a plain count reads half the index.
CREATE TABLE line_counts (
    bucket BIGINT NOT NULL,
    stripe BIGINT NOT NULL,
    n      BIGINT NOT NULL,
    PRIMARY KEY (bucket, stripe)
);
INSERT INTO line_counts (bucket, stripe, n)
SELECT CASE WHEN line_key >= 0 THEN line_key / 4096 ELSE -((4095 - line_key) / 4096) END,
       0, COUNT(*)
FROM waitlist WHERE line_key IS NOT NULL
GROUP BY CASE WHEN line_key >= 0 THEN line_key / 4096 ELSE -((4095 - line_key) / 4096) END;

-- The mailboxes that earned their referrer a credit, as a keyed hash (the key is
-- `settings`' mailbox_key) of the mailbox (lathe_core::referral::mailbox), never the
-- address: kept after the entry is erased, so that an address earns one credit, ever.
-- Its primary key makes that hold across instances: of two confirmations racing, one
-- inserts.
CREATE TABLE credited_mailboxes (
    mailbox_hash TEXT PRIMARY KEY,
    credited_at  BIGINT NOT NULL
);
