-- What each merge of two animals moved (issue 39 item 7), so that it can be undone: the merge
-- deletes `from`'s image rows (its photos live on as new rows of `into`), so the photos as they
-- were, and the rows the merge made on `into`, are kept here. Un-merging gives `from` its photos
-- back under new image ids (every owner index then rebuilds) and removes the copies.
create table if not exists animal_merges (
  id uuid primary key,
  owner_id uuid not null references accounts(id) on delete cascade,
  into_id uuid not null references individuals(id) on delete cascade,
  from_id uuid not null references individuals(id) on delete cascade,
  -- [{cid, source, in_record, width, height}] in `from`'s order
  photos jsonb not null,
  -- the image rows the merge added to `into` (a cid `into` already had adds none)
  copies uuid[] not null,
  created_at timestamptz not null default now(),
  undone_at timestamptz
);
create index if not exists animal_merges_into_idx on animal_merges (owner_id, into_id);
create index if not exists animal_merges_from_idx on animal_merges (owner_id, from_id);
