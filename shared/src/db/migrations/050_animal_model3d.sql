-- Animal 3D data (spec section 3, "Animal 3D model"). No route builds a model; a row appears only
-- when an offline builder writes one. No row is the "never built" state.
create table if not exists animal_models3d (
  individual_id uuid primary key references individuals(id) on delete cascade,
  owner_id uuid not null,
  -- built: a model exists (available); failed: a gate blocked the build
  status text not null check (status in ('built', 'failed')),
  reason_code text,
  -- failed: the gate's measurements
  gate jsonb,
  -- built: points on the animal vs the whole scene, and whether too sparse
  trust jsonb,
  model_cid text,
  created_at timestamptz not null default now(),
  check (status <> 'built' or trust is not null),
  check (status <> 'failed' or (reason_code is not null and gate is not null))
);
