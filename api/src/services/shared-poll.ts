/**
 * One database poll per subject, shared by everyone listening to it. A progress stream used to
 * run its own poll loop, so N streams on one survey cost N queries a tick; now the first listener
 * starts the loop, later ones join it (and get the latest value at once), and the loop stops when
 * the last one leaves or the subject reaches a final state.
 */
export interface SharedPollOptions<T> {
  /** The subject's state now; undefined when it no longer exists (every listener then ends). */
  read(id: string): Promise<T | undefined>;
  /** Listeners hear a value only when this key changes. */
  key(value: T): string;
  /** A final value ends every listener after it is heard. */
  final(value: T): boolean;
  intervalMs: number;
}

type Listener<T> = (event: { value: T } | { end: true; error?: unknown }) => void;

interface Poll<T> {
  listeners: Set<Listener<T>>;
  last?: T;
}

export interface SharedPoll<T> {
  /** The subject's values, one per change, until a final value, its disappearance or `signal`. */
  subscribe(id: string, signal: AbortSignal): AsyncGenerator<T>;
  /** Loops running now (one per subject with listeners): for tests and health. */
  running(): number;
}

export function createSharedPoll<T>(opts: SharedPollOptions<T>): SharedPoll<T> {
  const polls = new Map<string, Poll<T>>();

  const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

  async function loop(id: string, poll: Poll<T>): Promise<void> {
    let lastKey: string | undefined;
    try {
      while (poll.listeners.size > 0) {
        const value = await opts.read(id);
        if (value === undefined) break;
        const key = opts.key(value);
        if (key !== lastKey) {
          lastKey = key;
          poll.last = value;
          for (const l of [...poll.listeners]) l({ value });
        }
        if (opts.final(value)) break;
        await wait(opts.intervalMs);
      }
      for (const l of [...poll.listeners]) l({ end: true });
    } catch (error) {
      for (const l of [...poll.listeners]) l({ end: true, error });
    } finally {
      if (polls.get(id) === poll) polls.delete(id);
    }
  }

  async function* subscribe(id: string, signal: AbortSignal): AsyncGenerator<T> {
    const queue: Array<{ value: T } | { end: true; error?: unknown }> = [];
    let wake: (() => void) | undefined;
    const listener: Listener<T> = (e) => {
      queue.push(e);
      wake?.();
    };
    let poll = polls.get(id);
    const joined = poll !== undefined;
    if (!poll) {
      poll = { listeners: new Set() };
      polls.set(id, poll);
    }
    poll.listeners.add(listener);
    // A listener that joins a running loop hears where things stand now, as the first one did.
    if (joined && poll.last !== undefined) queue.push({ value: poll.last });
    else if (!joined) void loop(id, poll);
    const onAbort = () => wake?.();
    signal.addEventListener('abort', onAbort);
    try {
      while (!signal.aborted) {
        const next = queue.shift();
        if (!next) {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          continue;
        }
        if ('end' in next) {
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- each follower gets what the poll threw, as it was thrown
          if (next.error) throw next.error;
          return;
        }
        yield next.value;
        if (opts.final(next.value)) return;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      poll.listeners.delete(listener);
    }
  }

  return { subscribe, running: () => polls.size };
}
