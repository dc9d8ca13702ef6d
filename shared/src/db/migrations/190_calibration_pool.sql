-- A calibration pooled across owners (docs/recognition.md, "Calibration pooled across owners").
-- One row per labelled answer: its scores and whether it was right, wrong or a stranger, nothing
-- else. `owner_id` stays in this table to count one owner's answers as correlated, cap them, set a
-- disagreeing owner aside and honour an opt-out; no fit, route or log names it to another account.
create table if not exists calibration_samples (
  id bigserial primary key,
  owner_id uuid not null,
  -- Where the label came from ('verdict': identify_verdict, review confirmations and "none of these").
  source text not null,
  -- The labelled answer (its query id): a relabel replaces the sample.
  ref text not null,
  kind text not null check (kind in ('tree', 'fruit', 'animal')),
  engine_version text not null,
  -- The pool's one species ('*': several, or a kind without species), and its size band.
  species text not null,
  band text not null check (band in ('small', 'large')),
  views integer not null check (views >= 1),
  outcome text not null check (outcome in ('right', 'wrong', 'stranger')),
  -- The top answer's scores (vision/calibrate.ts Evidence): numbers only.
  evidence jsonb not null,
  labelled_at timestamptz not null,
  unique (source, ref)
);
create index if not exists calibration_samples_cell_idx on calibration_samples (kind, engine_version, species, band);

-- Versions of the pooled calibration per cell: fitted as `shadow`, scored on the newest answers the
-- fit did not read, then `serving` (one per cell), `retired` when a newer one is promoted, or
-- `rolled_back`; `refused` when the pool could not vouch (the report says why).
create table if not exists pooled_calibrations (
  id bigserial primary key,
  kind text not null check (kind in ('tree', 'fruit', 'animal')),
  engine_version text not null,
  species text not null,
  band text not null check (band in ('small', 'large')),
  params jsonb,
  report jsonb not null,
  shadow jsonb,
  status text not null check (status in ('shadow', 'serving', 'retired', 'rolled_back', 'refused')),
  created_at timestamptz not null default now(),
  promoted_at timestamptz,
  retired_at timestamptz
);
create index if not exists pooled_calibrations_cell_idx on pooled_calibrations (kind, engine_version, species, band, id desc);
create unique index if not exists pooled_calibrations_serving_idx on pooled_calibrations (kind, engine_version, species, band) where status = 'serving';

-- An owner may keep their answers out of the pool (they still use it).
alter table accounts add column if not exists calibration_contribute boolean not null default true;
