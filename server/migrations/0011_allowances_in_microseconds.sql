-- The allowances' theoretical arrival times in microseconds, where they were in ms: at
-- more than 60,000 sign-ups a minute the interval between two was 0 ms (integer
-- division), and sign-ups that reached the database a millisecond out of order were
-- refused. In µs the interval is exact to a microsecond up to 60,000,000 a minute, the
-- most `--sign-ups-per-minute` takes.
ALTER TABLE allowances RENAME COLUMN tat TO tat_us;
UPDATE allowances SET tat_us = tat_us * 1000;
