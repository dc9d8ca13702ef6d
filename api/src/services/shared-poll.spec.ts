import { describe, expect, it } from 'vitest';
import { createSharedPoll } from './shared-poll.js';

/** A subject whose state the test moves by hand, counting how often it is read. */
function subject() {
  const state = { value: { step: 0, done: false } as { step: number; done: boolean } | undefined, reads: 0 };
  const poll = createSharedPoll({
    read: async () => {
      state.reads++;
      return state.value ? { ...state.value } : undefined;
    },
    key: (v) => String(v.step),
    final: (v) => v.done,
    intervalMs: 20,
  });
  return { state, poll };
}

const collect = async <T>(it: AsyncGenerator<T>) => {
  const out: T[] = [];
  for await (const v of it) out.push(v);
  return out;
};
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('createSharedPoll', () => {
  it('runs one read loop however many listen, and each hears every change once', async () => {
    const { state, poll } = subject();
    const listeners = Array.from({ length: 50 }, () => collect(poll.subscribe('s1', new AbortController().signal)));
    await tick(100);
    expect(poll.running()).toBe(1);
    // One loop: a read per tick, not fifty.
    expect(state.reads).toBeLessThan(15);
    state.value = { step: 1, done: false };
    await tick(60);
    state.value = { step: 2, done: true };
    const heard = await Promise.all(listeners);
    for (const h of heard) expect(h.map((v) => v.step)).toEqual([0, 1, 2]);
    expect(poll.running()).toBe(0);
  });

  it('a late listener hears where things stand at once, then the changes', async () => {
    const { state, poll } = subject();
    const stop = new AbortController();
    const first = collect(poll.subscribe('s2', stop.signal));
    state.value = { step: 3, done: false };
    await tick(60);
    const late = collect(poll.subscribe('s2', stop.signal));
    await tick(30);
    state.value = { step: 4, done: true };
    expect((await first).map((v) => v.step)).toEqual([0, 3, 4]);
    expect((await late).map((v) => v.step)).toEqual([3, 4]);
  });

  it('stops reading when the last listener leaves, and ends listeners when the subject disappears', async () => {
    const { state, poll } = subject();
    const a = new AbortController();
    const gen = collect(poll.subscribe('s3', a.signal));
    await tick(50);
    a.abort();
    await gen;
    await tick(50);
    const reads = state.reads;
    await tick(100);
    expect(state.reads).toBe(reads);
    expect(poll.running()).toBe(0);

    const b = new AbortController();
    const gone = collect(poll.subscribe('s4', b.signal));
    await tick(50);
    state.value = undefined;
    expect((await gone).map((v) => v.step)).toEqual([0]);
  });

  it('passes a read error to every listener', async () => {
    const poll = createSharedPoll<{ n: number }>({
      read: async () => {
        throw new Error('db down');
      },
      key: (v) => String(v.n),
      final: () => false,
      intervalMs: 10,
    });
    const stop = new AbortController();
    await expect(collect(poll.subscribe('x', stop.signal))).rejects.toThrow('db down');
    expect(poll.running()).toBe(0);
  });
});
