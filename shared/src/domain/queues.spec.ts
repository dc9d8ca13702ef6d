import { describe, expect, it } from 'vitest';
import { jobNames } from './jobs.js';
import { QUEUES, parseConcurrency, queueOf } from './queues.js';

describe('job → queue map', () => {
  it('gives every catalogued job one of the six queues', () => {
    for (const n of jobNames) expect(QUEUES).toContain(queueOf(n));
    expect(queueOf('identify')).toBe('identify');
    expect(queueOf('identify_auto')).toBe('identify');
    expect(queueOf('enroll')).toBe('enrol');
    expect(queueOf('video')).toBe('video');
    expect(queueOf('anchor')).toBe('anchor');
  });

  it('places jobs added by other areas by name, and unknown ones on batch', () => {
    expect(queueOf('fruit_lookup')).toBe('identify');
    expect(queueOf('fruit_batch_item')).toBe('batch');
    expect(queueOf('train')).toBe('reindex');
    expect(queueOf('animal_video_frames')).toBe('video');
    expect(queueOf('something_new')).toBe('batch');
  });

  it('parses per-queue concurrency and refuses typos', () => {
    expect(parseConcurrency('identify=4, video:1', 2)).toMatchObject({ identify: 4, video: 1, enrol: 2, batch: 2 });
    expect(() => parseConcurrency('identfy=4', 2)).toThrow(/bad queue concurrency/);
    expect(() => parseConcurrency('video=0', 2)).toThrow(/bad queue concurrency/);
  });
});
