-- Evidence: canonical tree records, per-entity hash-chained timelines, farm ownership,
-- anchors and the signed checkpoint log of the `local` anchor backend.

-- One canonical record per tree, written in the same transaction as the tree's first enrolment.
create table if not exists tree_records (
  individual_id uuid primary key references individuals(id) on delete cascade,
  code text not null unique,
  record_cbor bytea not null,
  record_cid text not null,
  record_hash text not null,
  created_at timestamptz not null default now()
);

-- A farm has no enrolment of its own: it is bound to the first account that enrols an individual
-- with that farm_id (spec: "the first writer becomes bound as owner"), and never rebound.
create table if not exists farms (
  farm_id text primary key,
  owner_id uuid not null references accounts(id) on delete cascade,
  created_at timestamptz not null default now()
);

-- Own-chain events. (entity_type, entity_id, seq) is unique, so two writers can never both
-- append the same seq: the chain cannot fork even if the advisory lock were bypassed.
create table if not exists timeline_events (
  id uuid primary key,
  entity_type text not null,
  entity_id text not null,
  seq integer not null check (seq >= 0),
  owner_id uuid not null,
  author_id uuid,
  author_role text,
  visibility text not null check (visibility in ('public', 'private')),
  approval text not null check (approval in ('approved', 'pending')),
  body jsonb not null,
  created_at timestamptz not null,
  prev_hash text not null,
  leaf_hash text not null,
  unique (entity_type, entity_id, seq)
);
create index if not exists timeline_events_care_idx on timeline_events (entity_type, entity_id) where (body->>'type') = 'care';

-- One row per anchoring of one chain root. Status: pending -> submitted -> confirmed, or failed.
create table if not exists anchors (
  id uuid primary key,
  entity_type text not null,
  entity_id text not null,
  size integer not null check (size >= 1),
  root_hex text not null,
  backend text not null check (backend in ('local', 'cardano')),
  status text not null check (status in ('pending', 'submitted', 'confirmed', 'failed')),
  event_id uuid,
  owner_id uuid not null,
  checkpoint_seq integer,
  tx_hash text,
  tx_cbor_hex text,
  explorer_url text,
  confirmations integer not null default 0,
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index if not exists anchors_entity_idx on anchors (entity_type, entity_id, size);
-- A root is anchored at most once per backend unless the earlier attempt failed.
create unique index if not exists anchors_live_uniq on anchors (entity_type, entity_id, size, backend) where status <> 'failed';

-- The `local` backend's append-only log: each checkpoint links to the hash of the one before.
create table if not exists checkpoint_log (
  seq integer primary key check (seq >= 0),
  log_id text not null,
  checkpoint jsonb not null,
  hash text not null unique,
  created_at timestamptz not null default now()
);
