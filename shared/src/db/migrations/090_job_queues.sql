-- Operations (issue 16): the embedded queue records which request enqueued a job, so worker log
-- lines join the API's, and claims filter by job name and owner (one queue per job kind,
-- per-account fairness and quotas).
alter table jobs add column if not exists request_id text;
create index if not exists jobs_owner_open_idx on jobs ((data->>'owner_id'), state) where state in ('waiting', 'active');

-- What each worker process loaded (model, execution provider), published by the worker and read
-- by /api/health, so the API never loads the model itself.
create table if not exists worker_status (
  worker_id text primary key,
  queues text[] not null,
  recognition jsonb,
  started_at timestamptz not null default now(),
  seen_at timestamptz not null default now()
);
