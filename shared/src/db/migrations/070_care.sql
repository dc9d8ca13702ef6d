-- Care log (spec section 4 "Care"): one row per care action on a tree, fruit lot or animal.
-- Withdrawal is stored as computed at logging time (product, interval, source), so a later edit of
-- the product store never silently shortens a running withdrawal. A deleted entry keeps its row as
-- a tombstone (deleted_at, fields cleared) so the timeline can show the deletion.
create table if not exists care_entries (
  id uuid primary key,
  author_id uuid not null references accounts(id),
  owner_id uuid not null references accounts(id),
  target_type text not null check (target_type in ('tree', 'fruit', 'animal')),
  target_id uuid not null,
  action text,
  product_id text,
  product_name text,
  dose text,
  note text,
  photo_cid text,
  applied_at timestamptz,
  withdrawal jsonb,
  withdrawal_until timestamptz,
  banned jsonb,
  created_at timestamptz not null default now(),
  deleted_at timestamptz,
  -- the id of the deletion event the timeline shows once the entry is deleted
  deletion_event_id uuid
);
create index if not exists care_entries_target_idx on care_entries (target_type, target_id, created_at);
create index if not exists care_entries_author_idx on care_entries (author_id);
