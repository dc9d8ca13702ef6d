-- Verdicts per owner (issue 23): each owner's calibration per kind, fitted on its own gallery
-- (open set included) and labels, for one pipeline (engine version + learned version + scope).
-- `params` is null when the sample could not vouch for the false-match target: identify then
-- uses the kind's defaults and says so, with `report.reason`.
create table if not exists owner_calibrations (
  id bigserial primary key,
  owner_id uuid not null,
  kind text not null check (kind in ('tree', 'fruit', 'animal')),
  pipeline text not null,
  params jsonb,
  report jsonb not null,
  created_at timestamptz not null default now()
);
create index if not exists owner_calibrations_lookup_idx on owner_calibrations (owner_id, kind, pipeline, id desc);

-- The learning loop: one row per run (queued after enough new photos or labels), what it
-- measured and what it decided, for the owner's route and /metrics.
create table if not exists learning_runs (
  id bigserial primary key,
  owner_id uuid not null,
  kind text not null check (kind in ('tree', 'fruit', 'animal')),
  job_id text,
  trigger jsonb not null,
  status text not null check (status in ('queued', 'adopted', 'refused', 'skipped', 'failed', 'rolled_back')),
  decision jsonb,
  created_at timestamptz not null default now(),
  finished_at timestamptz
);
create index if not exists learning_runs_owner_idx on learning_runs (owner_id, kind, id desc);
