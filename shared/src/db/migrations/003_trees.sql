-- Tree management: who may see a traceability code, scan tokens, and shared access (grants).

-- private: the code resolves to the same fixed 404 as a wrong code; restricted: a summary card;
-- public: the full provenance record. New trees start private, so nothing leaks before the owner chooses.
alter table individuals add column if not exists visibility text not null default 'private'
  check (visibility in ('private', 'restricted', 'public'));
alter table individuals add column if not exists visibility_changed_at timestamptz;

-- A scan token is single use: consumed_at is set once, by the one confirm that matches every condition.
-- Only the SHA-256 of the token is stored, like bearer tokens.
create table if not exists scan_tokens (
  hash text primary key,
  owner_id uuid not null references accounts(id) on delete cascade,
  species_guess text,
  top_k jsonb not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  consumed_at timestamptz
);
create index if not exists scan_tokens_owner_idx on scan_tokens (owner_id, created_at);

-- One row per (owner, grantee, kind). Revoking keeps the row (revoked_at) for the audit trail;
-- granting again clears it. Only rows with revoked_at null give access.
create table if not exists grants (
  owner_id uuid not null references accounts(id) on delete cascade,
  grantee_id uuid not null references accounts(id) on delete cascade,
  kind text not null default 'tree' check (kind in ('tree', 'fruit', 'animal')),
  access text not null check (access in ('read', 'write')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  revoked_at timestamptz,
  primary key (owner_id, grantee_id, kind),
  check (owner_id <> grantee_id)
);
create index if not exists grants_grantee_idx on grants (grantee_id, kind) where revoked_at is null;
