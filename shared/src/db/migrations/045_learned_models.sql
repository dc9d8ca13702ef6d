-- Metrics learned from each owner's own labelled photos (issue 11, item 5). One row per trained
-- version; at most one is adopted per owner and kind, and identify uses that one. A version is
-- tied to the base embedding it was trained on: after a base-model change it is ignored until
-- retrained. `job_key` makes a retried training job return the version it already stored.

create table if not exists learned_models (
  id bigserial primary key,
  owner_id uuid not null references accounts(id) on delete cascade,
  kind text not null check (kind in ('tree', 'fruit', 'animal')),
  version integer not null,
  recipe text not null,
  base_model text not null,
  base_version text not null,
  status text not null check (status in ('adopted', 'rejected', 'retired', 'rolled_back')),
  params bytea not null,
  report jsonb not null,
  job_key text,
  created_at timestamptz not null default now(),
  changed_at timestamptz not null default now(),
  unique (owner_id, kind, version)
);
create unique index if not exists learned_models_one_adopted on learned_models (owner_id, kind) where status = 'adopted';
create unique index if not exists learned_models_job_key on learned_models (owner_id, kind, job_key) where job_key is not null;

-- The learned version behind each stored answer (null: the base embedding alone).
alter table identify_queries add column if not exists learned_version integer;
