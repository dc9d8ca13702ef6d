-- Models in (issue 17): candidate global-embedding models registered by an admin, their copies
-- under DATA_DIR/models, the share of live identify requests each scores in shadow, and which
-- one serves (none: the bundled registry model). Shadow answers are kept beside the served one,
-- never returned.
create table if not exists model_registrations (
  id uuid primary key,
  name text not null,
  version text not null,
  dir text not null,
  manifest jsonb not null,
  sha256 text not null,
  licence text not null,
  status text not null check (status in ('shadow', 'serving', 'retired')),
  shadow_share double precision not null default 0.1 check (shadow_share >= 0 and shadow_share <= 1),
  created_at timestamptz not null default now(),
  promoted_at timestamptz,
  unique (name, version)
);

create table if not exists shadow_scores (
  query_id uuid not null,
  registration_id uuid not null references model_registrations(id) on delete cascade,
  owner_id uuid not null,
  engine jsonb not null,
  verdict text not null,
  top1 uuid,
  probability double precision,
  served_top1 uuid,
  agrees boolean not null,
  candidates jsonb not null,
  created_at timestamptz not null default now(),
  primary key (query_id, registration_id)
);
create index if not exists shadow_scores_reg_idx on shadow_scores (registration_id);
