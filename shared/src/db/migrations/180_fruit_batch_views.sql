-- Several views per fruit in a packing-house batch (issue 41): a packing line's cameras photograph
-- each fruit from several sides as it rolls, and the batch decides one row per fruit from all of
-- them, as one identify query. A row of fruit_batch_rows is now one fruit; its photos are here, in
-- the order they came, each with its own failure when that view alone could not be used (not an
-- image, too large, unusable) while the others still decide. The row's `cid` stays the first
-- usable view's, for thumbnails and for rows written before this table.
create table if not exists fruit_batch_views (
  batch_id uuid not null,
  idx integer not null,
  view integer not null,
  file_name text not null,
  cid text,
  reason_code text,
  reason_params jsonb,
  primary key (batch_id, idx, view),
  foreign key (batch_id, idx) references fruit_batch_rows(batch_id, idx) on delete cascade
);
create index if not exists fruit_batch_views_cid_idx on fruit_batch_views (cid);
