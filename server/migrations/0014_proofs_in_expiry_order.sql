-- The spent proofs of work keyed by their expiry first (server/src/waitlist/proof.rs,
-- `EXPIRES_AT_MS`): a challenge's signature is random, so a key of the signature alone put
-- each new row at a random page of its index, one more page for the database to write
-- with every sign-up; proofs are spent in about the order their challenges were issued,
-- so with the expiry first each lands at the right edge, and the expired ones are cut off
-- at the left. A signature still counts once: the expiry is part of what it signs.
CREATE TABLE proofs_by_expiry (
    expires_at BIGINT NOT NULL,
    signature  TEXT NOT NULL,
    PRIMARY KEY (expires_at, signature)
);
INSERT INTO proofs_by_expiry (expires_at, signature) SELECT expires_at, signature FROM proofs;
DROP TABLE proofs;
ALTER TABLE proofs_by_expiry RENAME TO proofs;
