import { describe, expect, it, vi } from 'vitest';
import type { QueueAdmin } from '../../../shared/src/ports/queue.port.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import { createOpsService, type OpsDeps } from './ops.service.js';

const db = strictMock<Queryable>({}, 'db');
const recognition = { model: { name: 'm', version: '1' }, provider: 'cpu' as const };

function ops(over: Partial<OpsDeps> = {}) {
  return createOpsService({
    mode: 'embedded',
    db,
    workerStatus: strictMock<OpsDeps['workerStatus']>({}, 'workerStatus'),
    queueAdmin: strictMock<QueueAdmin>({}, 'queueAdmin'),
    blobs: strictMock<OpsDeps['blobs']>({}, 'blobs'),
    metrics: strictMock<OpsDeps['metrics']>({ contentType: 'text/plain' }, 'metrics'),
    ...over,
  });
}

describe('ops service: health', () => {
  it('probes the database (through worker status, on the given handle) and the blobs in embedded mode, not the queue', async () => {
    const ping = vi.fn(async () => {});
    const has = vi.fn(async () => false);
    const s = ops({ workerStatus: strictMock<OpsDeps['workerStatus']>({ ping }), blobs: strictMock<OpsDeps['blobs']>({ has }) });
    expect(await s.dependencies()).toEqual({ database: 'up', blobs: 'up' });
    expect(ping).toHaveBeenCalledWith(db);
    expect(has).toHaveBeenCalledWith('health-probe');
  });

  it('reports each failing dependency as down, and probes the queue in distributed mode', async () => {
    const s = ops({
      mode: 'distributed',
      workerStatus: strictMock<OpsDeps['workerStatus']>({ ping: async () => Promise.reject(new Error('no database')) }),
      queueAdmin: strictMock<QueueAdmin>({ stats: async () => Promise.reject(new Error('no redis')) }),
      blobs: strictMock<OpsDeps['blobs']>({ has: async () => true }),
    });
    expect(await s.dependencies()).toEqual({ database: 'down', redis: 'down', blobs: 'up' });
  });

  it('keeps the last recognition read while the database cannot answer', async () => {
    const latestRecognition = vi.fn().mockResolvedValueOnce(recognition).mockRejectedValueOnce(new Error('database down'));
    const s = ops({ workerStatus: strictMock<OpsDeps['workerStatus']>({ latestRecognition }) });
    expect(await s.recognition()).toEqual(recognition);
    expect(await s.recognition()).toEqual(recognition);
    expect(latestRecognition).toHaveBeenCalledTimes(2);
  });

  it('answers null when no worker has published yet', async () => {
    const s = ops({ workerStatus: strictMock<OpsDeps['workerStatus']>({ latestRecognition: async () => null }) });
    expect(await s.recognition()).toBeNull();
  });
});

describe('ops service: queue steering', () => {
  it('steers a known queue', async () => {
    const pause = vi.fn(async () => {});
    const setConcurrency = vi.fn(async () => {});
    const s = ops({ queueAdmin: strictMock<QueueAdmin>({ pause, setConcurrency }) });
    await s.pause('identify');
    await s.setConcurrency('identify', 3);
    expect(pause).toHaveBeenCalledWith('identify');
    expect(setConcurrency).toHaveBeenCalledWith('identify', 3);
  });

  it('answers an unknown queue name 404 queue_unknown without touching the queue', async () => {
    const s = ops();
    for (const act of [() => s.pause('nope'), () => s.resume('nope'), () => s.retryFailed('nope'), () => s.removeFailed('nope')])
      expect(act).toThrow(expect.objectContaining({ status: 404, code: 'queue_unknown' }));
    await expect(s.setConcurrency('nope', 2)).rejects.toMatchObject({ status: 404, code: 'queue_unknown' });
  });

  it('refuses a concurrency that is not a whole number of at least 1, before naming the queue', async () => {
    const s = ops();
    for (const n of [0, -1, 1.5, Number.NaN])
      await expect(s.setConcurrency('identify', n)).rejects.toMatchObject({ status: 422, params: { field: 'concurrency' } });
  });

  it('renders the metrics with their content type', async () => {
    const s = ops({ metrics: strictMock<OpsDeps['metrics']>({ render: async () => 'up 1\n', contentType: 'text/plain; v=0.0.4' }) });
    expect(await s.metrics()).toBe('up 1\n');
    expect(s.metricsContentType).toBe('text/plain; v=0.0.4');
  });
});
