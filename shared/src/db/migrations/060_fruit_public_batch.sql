-- Fruit for the public (point-of-sale scan tokens) and for packing houses (batches).

-- A point-of-sale scan token. Public: bound to no account and to nothing about the caller (no IP,
-- no photo: the photo blob is deleted once the candidates are known). Only the SHA-256 of the
-- token is stored. consumed_at is set once, by the one choice that names an offered candidate.
create table if not exists fruit_scan_tokens (
  hash text primary key,
  candidates jsonb not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  consumed_at timestamptz,
  chosen_id uuid
);
create index if not exists fruit_scan_tokens_expiry_idx on fruit_scan_tokens (expires_at);

-- One batch of photos sent by a packing house; kept until its owner deletes it.
create table if not exists fruit_batches (
  id uuid primary key,
  owner_id uuid not null references accounts(id) on delete cascade,
  tree_id uuid,
  farm_id text,
  total integer not null,
  status text not null default 'running' check (status in ('running', 'done')),
  created_at timestamptz not null default now(),
  finished_at timestamptz
);
create index if not exists fruit_batches_owner_idx on fruit_batches (owner_id, created_at desc);

-- One row per photo. (batch_id, idx) is the key, and a job only moves a row out of `pending`,
-- so a job retried after a worker died can never add or count a row twice.
create table if not exists fruit_batch_rows (
  batch_id uuid not null references fruit_batches(id) on delete cascade,
  idx integer not null,
  file_name text not null,
  cid text,
  status text not null default 'pending' check (status in ('pending', 'done', 'failed')),
  fruit_id uuid,
  candidate text,
  probability double precision,
  verdict text,
  reason_code text,
  reason_params jsonb,
  finished_at timestamptz,
  -- Time the worker spent on this photo (describe + rank), for throughput figures (bench:batch).
  work_ms integer,
  primary key (batch_id, idx)
);
create index if not exists fruit_batch_rows_cid_idx on fruit_batch_rows (cid);
