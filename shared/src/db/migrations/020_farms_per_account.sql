-- Farms become per account: a farm is named by farm_id WITHIN its owner's account, so two accounts
-- can each have an `orchard-1` and nobody can take over another account's farm by binding first.
-- chain_id is the farm's key in timeline_events / anchors / entity_records: the plain farm_id for
-- farms bound before this migration (their hashed events name it and must not change), and
-- `<owner_id>/<farm_id>` for every farm bound from now on.
alter table farms add column if not exists chain_id text;
update farms set chain_id = farm_id where chain_id is null;
alter table farms alter column chain_id set not null;
create unique index if not exists farms_chain_id_idx on farms (chain_id);
alter table farms drop constraint if exists farms_pkey;
alter table farms add primary key (owner_id, farm_id);

-- A contributor's (non-owner's) event waits here, outside the hash chain, until the owner approves
-- it (then it is appended to the chain by the owner's action, naming its author and the approval
-- inside the hashed body) or rejects it (then it never enters the chain).
create table if not exists timeline_submissions (
  id uuid primary key,
  entity_type text not null,
  entity_id text not null,
  owner_id uuid not null references accounts(id) on delete cascade,
  author_id uuid not null references accounts(id) on delete cascade,
  body jsonb not null,
  created_at timestamptz not null default now(),
  status text not null default 'pending' check (status in ('pending', 'approved', 'rejected')),
  decided_at timestamptz
);
create index if not exists timeline_submissions_entity_idx on timeline_submissions (entity_type, entity_id, status);
create index if not exists timeline_submissions_author_idx on timeline_submissions (author_id, entity_type, entity_id, created_at);
