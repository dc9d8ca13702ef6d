-- Ground-truth labels re-fit the calibration: each identify query keeps the evidence behind its
-- ranking (never returned to clients), and each re-fit is stored with its report.

alter table identify_queries add column if not exists evidence jsonb;

create table if not exists calibrations (
  id bigserial primary key,
  kind text not null check (kind in ('tree', 'fruit', 'animal')),
  params jsonb not null,
  report jsonb not null,
  created_at timestamptz not null default now()
);
create index if not exists calibrations_kind_idx on calibrations (kind, id desc);
