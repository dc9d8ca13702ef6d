-- A decided batch row keeps the identify query it was answered as (identify_queries), so the
-- packing house can confirm or correct it with /api/fruit/identify_verdict like any other answer:
-- its label then joins the owner's calibration and the pooled one.
alter table fruit_batch_rows add column if not exists query_id uuid;
