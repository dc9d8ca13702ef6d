-- Issue 21/24: a write repeated with the same Idempotency-Key (a retry after a lost answer, the web
-- app's offline queue) gets the first answer back instead of being done twice. Job-backed routes
-- deduplicate through their job id; every other signed-in write keeps its answer here.
create table if not exists idempotent_replies (
  owner_id uuid not null,
  key text not null,
  method text not null,
  path text not null,
  status integer not null,
  body jsonb not null,
  created_at timestamptz not null default now(),
  primary key (owner_id, key)
);
create index if not exists idempotent_replies_created_idx on idempotent_replies (created_at);
