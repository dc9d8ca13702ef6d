-- Administrators are an operator's act (`npm run admin -- grant <username>`), never a side effect
-- of signing up under some name. One row per account that was ever granted: who granted it and
-- when, and who revoked it and when. An account is an administrator while its row has no
-- revoked_at; every request reads this table, so a grant or revoke applies to existing tokens at once.
create table if not exists admin_grants (
  account_id uuid primary key references accounts(id) on delete cascade,
  granted_by text not null,
  granted_at timestamptz not null default now(),
  revoked_by text,
  revoked_at timestamptz
);

-- Sign-in failures by key, replacing the per-username lock of 021 (which let a stranger lock an
-- owner out): `sa:<address>|<username>` (strict: locks that address for that name),
-- `s:<address>` (all names from one address) and `a:<username>` (all addresses; it only slows
-- addresses that have already failed, never one without failures). Counts restart after an
-- hour without failures; see api/src/services/login-throttle.ts.
create table if not exists login_failures (
  key text primary key,
  failures integer not null default 0,
  locked_until timestamptz,
  updated_at timestamptz not null default now()
);
