-- A survey's progress as the page shows it (issue 39): which stage the worker is at (`queued`
-- until a worker takes the job, `reading` frames, `identifying` tracks), how many frames the
-- video should give (from its length and the frames read per second; null until known) and how
-- many tracks have been identified so far.
alter table surveys add column if not exists stage text not null default 'queued';
alter table surveys add column if not exists frames_total integer;
alter table surveys add column if not exists identified integer not null default 0;
