-- Enrolled individuals (trees, fruit, animals), their photos and the descriptors computed from them.

create table if not exists individuals (
  id uuid primary key,
  owner_id uuid not null references accounts(id) on delete cascade,
  kind text not null check (kind in ('tree', 'fruit', 'animal')),
  farm_id text,
  -- a fruit may hang on a tree of the same owner
  tree_id uuid references individuals(id),
  species text,
  name text,
  lat double precision,
  lon double precision,
  attrs jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  deleted_at timestamptz
);
create index if not exists individuals_pool_idx on individuals (owner_id, kind) where deleted_at is null;

-- Every stored blob, by content address. A row exists only once its bytes are in the store.
create table if not exists blobs (
  cid text primary key,
  size bigint not null,
  content_type text not null,
  created_at timestamptz not null default now()
);

create table if not exists images (
  id uuid primary key,
  individual_id uuid not null references individuals(id) on delete cascade,
  owner_id uuid not null,
  cid text not null references blobs(cid),
  source text not null,
  -- true only for the photos of the first enrolment, which the canonical record names
  in_record boolean not null default false,
  width integer,
  height integer,
  created_at timestamptz not null default now(),
  unique (individual_id, cid)
);
create index if not exists images_owner_idx on images (owner_id);

-- One row per image and model version: results of different versions are never mixed.
create table if not exists descriptors (
  image_id uuid not null references images(id) on delete cascade,
  owner_id uuid not null,
  model text not null,
  model_version text not null,
  global bytea not null,
  local bytea,
  quality jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  primary key (image_id, model, model_version)
);
create index if not exists descriptors_owner_idx on descriptors (owner_id, model_version);

create table if not exists identify_queries (
  id uuid primary key,
  owner_id uuid not null,
  kind text not null,
  image_cids text[] not null,
  result jsonb,
  created_at timestamptz not null default now()
);

create table if not exists identify_verdicts (
  id uuid primary key,
  query_id uuid not null references identify_queries(id) on delete cascade,
  owner_id uuid not null,
  verdict text not null check (verdict in ('correct', 'wrong', 'other', 'unknown_ok')),
  correct_id uuid,
  created_at timestamptz not null default now(),
  unique (query_id, owner_id)
);
