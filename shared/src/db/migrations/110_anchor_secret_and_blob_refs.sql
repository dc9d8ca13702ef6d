-- The server secret behind the anchor log's entity commitments (shared/src/evidence/entity-commitment.ts).
-- One row, written once by whichever process anchors or proves first; it never leaves the database.
-- Losing it only means old commitments can no longer be opened for new bundles; rotating it is not supported.
create table if not exists anchor_secrets (
  name text primary key,
  secret bytea not null,
  created_at timestamptz not null default now()
);

-- The blob reference model (shared/src/evidence/store/blob-refs.ts) asks, for one CID, whether any
-- of these columns names it; without these indexes each release scanned every table.
create index if not exists images_cid_idx on images (cid);
create index if not exists identify_queries_cids_idx on identify_queries using gin (image_cids);
create index if not exists care_entries_photo_cid_idx on care_entries (photo_cid) where photo_cid is not null;
create index if not exists population_counts_cids_idx on population_counts using gin (media_cids);
create index if not exists animal_models3d_cid_idx on animal_models3d (model_cid) where model_cid is not null;
