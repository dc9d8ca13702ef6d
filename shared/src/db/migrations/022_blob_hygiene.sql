-- Who uploaded a blob that no image row names (videos): the owner may fetch it back by CID.
create table if not exists blob_owners (
  cid text not null,
  owner_id uuid not null references accounts(id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (cid, owner_id)
);

-- A blob an upload wrote, until the request's work (a job enqueued, a row written) has taken it
-- over. A row left here by a killed process marks a possible orphan: the start-up and periodic
-- sweep deletes the blob after ORPHAN_BLOB_GRACE_S unless something has come to reference it.
create table if not exists upload_staging (
  cid text not null,
  created_at timestamptz not null default now()
);
create index if not exists upload_staging_created_idx on upload_staging (created_at);
