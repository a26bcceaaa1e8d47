-- A repeat sign-up no longer replaces an entry: anyone who knows an address could rewrite
-- its entry. The entry stays as its owner first sent it; a repeat is counted, with its
-- time. `updates` counted the replacements, and `updated_at` was the last one's time.
ALTER TABLE waitlist RENAME COLUMN updates TO repeats;
ALTER TABLE waitlist ADD COLUMN last_repeat_at BIGINT;
UPDATE waitlist SET last_repeat_at = updated_at WHERE repeats > 0;
ALTER TABLE waitlist DROP COLUMN updated_at;
