-- The proofs of work spent on sign-ups: each challenge's signature once, kept until the
-- challenge expires, so that a solution is accepted once on every instance, and after a
-- restart.
CREATE TABLE proofs (
    signature  TEXT PRIMARY KEY,
    expires_at BIGINT NOT NULL
);
