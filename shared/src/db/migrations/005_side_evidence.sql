-- Fruit and farm boundaries are kept on the server only unless EVIDENCE_FRUIT_AND_BOUNDARIES is on
-- (spec section 1 rule 8). A farm's boundary lives with the farm; when the switch is on, each
-- fruit enrolment and each boundary version also gets a canonical DAG-CBOR record here.
alter table farms add column if not exists boundary jsonb;
alter table farms add column if not exists boundary_updated_at timestamptz;

create table if not exists entity_records (
  entity_type text not null check (entity_type in ('fruit', 'farm')),
  entity_id text not null,
  record_cbor bytea not null,
  record_cid text not null,
  record_hash text not null,
  created_at timestamptz not null default now(),
  primary key (entity_type, entity_id, record_cid)
);
