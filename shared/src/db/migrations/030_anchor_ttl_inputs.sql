-- Cardano anchors: the last slot a transaction may land in (its TTL), so a row marked failed is
-- one that can never land later; and the UTxOs it spends, so two anchors in flight never pick
-- the same inputs (a double spend the chain would refuse).
alter table anchors add column if not exists ttl_slot bigint;
alter table anchors add column if not exists inputs jsonb;
