-- Accounts, sessions, the embedded job queue, feedback and the activity log.

create table if not exists accounts (
  id uuid primary key,
  username text not null unique,
  -- null for accounts that only ever signed in with a DID key
  password_hash text,
  did text unique,
  created_at timestamptz not null default now()
);

-- Tokens are stored only as SHA-256 hashes; the raw token exists only in the client's hands.
create table if not exists tokens (
  hash text primary key,
  account_id uuid not null references accounts(id) on delete cascade,
  via text not null default 'password',
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz
);
create index if not exists tokens_account_idx on tokens (account_id);

create table if not exists did_challenges (
  nonce text primary key,
  ip text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);

-- The embedded queue keeps its jobs here so they survive a restart; BullMQ keeps its own in Redis.
create table if not exists jobs (
  id text primary key,
  name text not null,
  state text not null check (state in ('waiting', 'active', 'completed', 'failed')),
  data jsonb not null,
  result jsonb,
  error jsonb,
  attempts integer not null default 0,
  max_attempts integer not null,
  run_after timestamptz not null default now(),
  created_at timestamptz not null default now(),
  finished_at timestamptz
);
create index if not exists jobs_pick_idx on jobs (state, run_after);

create table if not exists feedback (
  id uuid primary key,
  owner_id uuid,
  note text not null,
  created_at timestamptz not null default now()
);

create table if not exists activity_events (
  id bigserial primary key,
  owner_id uuid,
  action text not null,
  detail jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now()
);
create index if not exists activity_events_owner_idx on activity_events (owner_id, created_at);
