-- Recognition v2: every descriptor keeps the registry models it came from (global embedding,
-- detector, local features: [{name, version}], see models/manifest.json) and the animal box it
-- described ({box:{x,y,w,h}, score, label, cocoClass} in pixels of the upright photo; null when
-- the whole photo was described). `model`/`model_version` stay the engine identity that
-- searches and re-embedding key on.
alter table descriptors add column if not exists models jsonb not null default '[]'::jsonb;
alter table descriptors add column if not exists subject jsonb;
