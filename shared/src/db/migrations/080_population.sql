-- Population counts and the alerts they raise. Everything is keyed by (owner_id, farm_id): a
-- farm_id names a farm inside one account, so two accounts may both have a farm called "f1"
-- and never see each other's counts.

create table if not exists population_counts (
  id uuid primary key,
  owner_id uuid not null references accounts(id) on delete cascade,
  farm_id text not null,
  zone text not null,
  count integer not null check (count >= 0),
  method text not null,
  note text,
  -- photos or a video of the count, by content address (rows in `blobs`)
  media_cids text[] not null default '{}',
  created_at timestamptz not null default now()
);
create index if not exists population_counts_zone_idx on population_counts (owner_id, farm_id, zone, created_at desc);

create table if not exists population_alerts (
  id uuid primary key,
  owner_id uuid not null references accounts(id) on delete cascade,
  farm_id text not null,
  zone text not null,
  count_id uuid not null references population_counts(id) on delete cascade,
  rule text not null check (rule in ('below_enrolled', 'sudden_drop', 'not_seen')),
  -- the individual a `not_seen` alert is about
  individual_id uuid references individuals(id) on delete cascade,
  facts jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  resolved_at timestamptz,
  resolved_note text
);
create index if not exists population_alerts_open_idx on population_alerts (owner_id, farm_id, created_at desc) where resolved_at is null;
