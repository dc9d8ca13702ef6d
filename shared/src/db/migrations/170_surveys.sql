-- Surveys from drone and phone video (POST /api/survey): one row per uploaded video. The row is
-- written by the API before the job runs (status `running`), its progress counters by the worker
-- while it reads frames, and `result` only when the whole video was read and every track decided:
-- a video that fails half way leaves `failed` with its error and no result, count or event.
create table if not exists surveys (
  id uuid primary key,
  owner_id uuid not null references accounts(id) on delete cascade,
  kind text not null check (kind in ('animal', 'fruit')),
  species text,
  farm_id text,
  tree_id uuid,
  zone text not null,
  video_cid text not null,
  job_id text not null,
  status text not null default 'running' check (status in ('running', 'done', 'failed')),
  frames_read integer not null default 0,
  tracks integer not null default 0,
  result jsonb,
  error jsonb,
  -- the population count this survey wrote (animal surveys with a farm)
  count_id uuid references population_counts(id) on delete set null,
  created_at timestamptz not null default now(),
  finished_at timestamptz
);
create index if not exists surveys_owner_idx on surveys (owner_id, created_at desc);

-- One row per counted track: its thumbnails and verdict, and the owner's review of it.
create table if not exists survey_tracks (
  survey_id uuid not null references surveys(id) on delete cascade,
  track_no integer not null,
  -- the stored identify query of the track's frames (identify_verdict labels refer to it); null for fruit
  query_id uuid,
  verdict text not null check (verdict in ('match', 'uncertain', 'no_match', 'counted')),
  individual_id uuid,
  candidates jsonb not null default '[]'::jsonb,
  frame_cids text[] not null default '{}',
  -- the crops in which enrolment's own detector finds the animal: "enrol as new" sends these
  enrol_cids text[] not null default '{}',
  first_s double precision not null,
  last_s double precision not null,
  boxes jsonb not null default '[]'::jsonb,
  reviewed text check (reviewed in ('confirmed', 'corrected')),
  reviewed_id uuid,
  primary key (survey_id, track_no)
);
