-- The line's columns move out of `waitlist` into a narrow table of their own
-- (server/src/store/line.rs; docs/server.md, "What a credit costs"). A referral's credit
-- rewrote its referrer's row of `waitlist`: on PostgreSQL a new version of a wide row (a
-- million entries are half a gigabyte) with an entry in each of its six indexes. Here it
-- rewrites a row of five numbers and an id, with entries in three small indexes.
--
-- A row for each entry that was ever confirmed (its number, never reused, and while it
-- stands in the line its key) or credited (an entry's friends may confirm before it does);
-- none for the others, who have no number and no credits. Deleted with its entry. The
-- numbers have no index here: PostgreSQL's sequence gives them, and SQLite's server makes
-- one of its own at start (server/src/store/line.rs, `prepare`, which says why).
CREATE TABLE standings (
    id          TEXT PRIMARY KEY REFERENCES waitlist (id) ON DELETE CASCADE,
    credits     BIGINT NOT NULL DEFAULT 0,
    neg_credits BIGINT NOT NULL DEFAULT 0,
    line_number BIGINT,
    line_key    BIGINT
);
CREATE INDEX standings_line ON standings (line_key, neg_credits, line_number)
    WHERE line_key IS NOT NULL;

INSERT INTO standings (id, credits, neg_credits, line_number, line_key)
SELECT id, credits, neg_credits, line_number, line_key FROM waitlist
WHERE line_number IS NOT NULL OR credits <> 0;

DROP INDEX waitlist_line;
DROP INDEX waitlist_line_number;
ALTER TABLE waitlist DROP COLUMN line_key;
ALTER TABLE waitlist DROP COLUMN neg_credits;
ALTER TABLE waitlist DROP COLUMN line_number;
ALTER TABLE waitlist DROP COLUMN credits;
