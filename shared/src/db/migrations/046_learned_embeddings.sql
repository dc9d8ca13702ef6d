-- Embeddings of enrolled photos under an owner's fine-tuned backbone (issue 11, item 5; recipe
-- finetuned-mobilenetv2-v1). A fine-tuned model needs every gallery photo run through it once;
-- keeping the vectors means a restart or one new enrolment embeds only what is new. Rows go with
-- their account or their image; those of a rolled-back version stay, so adopting it again is free.
create table if not exists learned_embeddings (
  owner_id uuid not null references accounts(id) on delete cascade,
  kind text not null,
  version integer not null,
  image_id uuid not null references images(id) on delete cascade,
  vector bytea not null,
  primary key (owner_id, kind, version, image_id)
);
