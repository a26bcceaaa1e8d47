-- Each client's allowance of sign-ups, shared by every server on one PostgreSQL (with
-- SQLite, one process keeps it in memory). The client is a keyed hash of its address
-- (the key is `settings`' allowance_key), never the address; its theoretical arrival
-- time (GCRA) says when its allowance is whole again, and the row goes after that.
CREATE TABLE allowances (
    client TEXT PRIMARY KEY,
    tat    BIGINT NOT NULL
);
