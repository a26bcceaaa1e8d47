-- Invitations at a pace (`lathe-site waitlist invite --mail-per-minute`): each wave's
-- pace, and when its last email is due, so that a wave made while another is still going
-- starts after it. Waves made before have neither: they went at once.
ALTER TABLE waves ADD COLUMN mail_per_minute BIGINT;
ALTER TABLE waves ADD COLUMN last_due_at BIGINT;
