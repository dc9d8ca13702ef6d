-- Per-username sign-in failures (known or unknown usernames alike, so a lock never reveals which
-- accounts exist). After 5 failures in a row each further failure locks sign-in for twice as long
-- as the one before (30 s, 60 s, ... at most 15 min); a success clears the row.
create table if not exists login_throttle (
  username text primary key,
  failures integer not null default 0,
  locked_until timestamptz,
  updated_at timestamptz not null default now()
);
