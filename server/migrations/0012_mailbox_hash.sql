-- Each entry's mailbox as a keyed hash (the key is `settings`' mailbox_key, as for
-- `credited_mailboxes`): a friend's sign-up through a share link is told from the
-- referrer's own mailbox by it, inside the sign-up's one statement on PostgreSQL, where
-- the referrer's address was read first and compared by the server. Filled in by the
-- server at start for older entries.
ALTER TABLE waitlist ADD COLUMN mailbox_hash TEXT;
