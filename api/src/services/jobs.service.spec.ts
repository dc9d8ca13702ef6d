import { describe, expect, it, vi } from 'vitest';
import type { JobRecord } from '../../../shared/src/ports/queue.port.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import { requestScope } from '../http/request-scope.js';
import { createJobsService, type JobsDeps } from './jobs.service.js';

type Queue = JobsDeps['queue'];
const OWNER = 'owner-1';
const payload = { owner_id: OWNER, individual_id: 'i-1' } as never;
const record = (over: Partial<JobRecord>): JobRecord =>
  ({
    id: 'job-1',
    name: 'enroll',
    state: 'completed',
    data: { owner_id: OWNER },
    attempts: 1,
    created_at: '2026-11-28T00:00:00.000Z',
    ...over,
  }) as JobRecord;

function jobs(queue: Queue) {
  return createJobsService({ queue, waitMs: 1234 });
}

describe('jobs service: enqueue and wait', () => {
  it('answers a job that completed in time with its result, having waited JOB_WAIT_MS', async () => {
    const enqueue = vi.fn(async () => 'job-1');
    const waitFor = vi.fn(async () => record({ result: { tree_id: 't-1' } as never }));
    expect(await jobs(strictMock<Queue>({ enqueue, waitFor })).run('enroll', payload)).toEqual({
      done: true,
      result: { tree_id: 't-1' },
      job_id: 'job-1',
    });
    expect(enqueue).toHaveBeenCalledWith('enroll', payload, {});
    expect(waitFor).toHaveBeenCalledWith('job-1', 1234);
  });

  it('answers a job still running with the job to poll', async () => {
    const queue = strictMock<Queue>({ enqueue: async () => 'job-1', waitFor: async () => record({ state: 'active' }) });
    expect(await jobs(queue).run('enroll', payload)).toEqual({
      done: false,
      job: {
        job_id: 'job-1',
        name: 'enroll',
        status: 'active',
        attempts: 1,
        created_at: '2026-11-28T00:00:00.000Z',
        poll: '/api/jobs/job-1',
      },
    });
  });

  it('turns a failed job’s client error back into that error, and hides a server one as 500 internal', async () => {
    const failing = (error: JobRecord['error']) =>
      jobs(strictMock<Queue>({ enqueue: async () => 'job-1', waitFor: async () => record({ state: 'failed', error }) })).run(
        'enroll',
        payload,
      );
    await expect(failing({ code: 'not_found', message: 'x', status: 404 })).rejects.toMatchObject({ status: 404, code: 'not_found' });
    await expect(failing({ code: 'not_found', message: 'db password wrong', status: 500 })).rejects.toMatchObject({
      status: 500,
      code: 'internal',
    });
    await expect(failing({ code: 'no_such_code', message: 'x', status: 400 })).rejects.toMatchObject({ status: 500, code: 'internal' });
    await expect(failing(undefined)).rejects.toMatchObject({ status: 500, code: 'internal' });
  });

  it('answers 500 when the queue lost the job', async () => {
    const queue = strictMock<Queue>({ enqueue: async () => 'job-1', waitFor: async () => null });
    await expect(jobs(queue).run('enroll', payload)).rejects.toMatchObject({ status: 500 });
  });
});

describe('jobs service: job ids', () => {
  it('derives one job id from owner, job and Idempotency-Key, so a retry is deduplicated by the queue', async () => {
    const enqueue = vi.fn(async () => 'job-1');
    const s = jobs(strictMock<Queue>({ enqueue, waitFor: async () => record({}) }));
    const inRequest = (key: string, name: 'enroll' | 'anchor') => requestScope.run({ idempotencyKey: key }, () => s.run(name, payload));
    await inRequest('k-1', 'enroll');
    await inRequest('k-1', 'enroll');
    await inRequest('k-2', 'enroll');
    await inRequest('k-1', 'anchor');
    const ids = enqueue.mock.calls.map((call) => (call as unknown[])[2]);
    expect(ids[0]).toEqual({ jobId: expect.stringMatching(/^idem-[0-9a-f]{40}$/) });
    expect(ids[1]).toEqual(ids[0]);
    expect(ids[2]).not.toEqual(ids[0]);
    // Anchoring is not an upload: the key does not apply to it.
    expect(ids[3]).toEqual({});
  });

  it('keeps a job id the caller chose', async () => {
    const enqueue = vi.fn(async () => 'anchor-x');
    const s = jobs(strictMock<Queue>({ enqueue, waitFor: async () => record({ id: 'anchor-x' }) }));
    await requestScope.run({ idempotencyKey: 'k-1' }, () => s.run('enroll', payload, 'anchor-x'));
    expect(enqueue).toHaveBeenCalledWith('enroll', payload, { jobId: 'anchor-x' });
  });
});

describe('jobs service: polling', () => {
  it('shows its owner a job; another owner’s job and a missing one are the same 404', async () => {
    const get = vi.fn(async (id: string) => (id === 'job-1' ? record({ state: 'waiting' }) : null));
    const s = jobs(strictMock<Queue>({ get }));
    expect(await s.get('job-1', OWNER)).toMatchObject({ job_id: 'job-1', status: 'waiting' });
    const foreign = await s.get('job-1', 'someone-else').catch((e: unknown) => e);
    const missing = await s.get('job-2', OWNER).catch((e: unknown) => e);
    expect(foreign).toMatchObject({ status: 404, code: 'not_found' });
    expect(missing).toEqual(foreign);
  });
});
