/**
 * Writes taken without signal (photos above all) wait here, in IndexedDB, and are sent when the
 * network returns, each with the Idempotency-Key it was first given: a retry never makes a second
 * tree or animal (issue 21, issue 24). Files are stored as Blobs, so nothing is lost on reload.
 */
export interface Queued {
  id?: number;
  method: string;
  path: string;
  key: string;
  /** Form entries: [name, string] or [name, Blob, file name]. */
  entries: Array<[string, string] | [string, Blob, string]>;
  at: string;
}

const DB = 'markless-offline';
const STORE = 'queue';

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: 'id', autoIncrement: true });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB request failed'));
  });
}

async function tx<T>(mode: IDBTransactionMode, f: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await open();
  return new Promise<T>((resolve, reject) => {
    const req = f(db.transaction(STORE, mode).objectStore(STORE));
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB request failed'));
  }).finally(() => db.close());
}

/** Keep a write for later. */
export async function enqueue(method: string, path: string, key: string, form: FormData): Promise<void> {
  const entries: Queued['entries'] = [];
  form.forEach((v, k) => entries.push(typeof v === 'string' ? [k, v] : [k, v, (v as File).name || 'photo.jpg']));
  await tx('readwrite', (s) => s.add({ method, path, key, entries, at: new Date().toISOString() } satisfies Queued));
  listeners.forEach((l) => void count().then(l));
}

export const count = (): Promise<number> => tx('readonly', (s) => s.count());
const all = (): Promise<Queued[]> => tx('readonly', (s) => s.getAll() as IDBRequest<Queued[]>);
const remove = (id: number) => tx('readwrite', (s) => s.delete(id));

const listeners = new Set<(n: number) => void>();
/** Told the number of waiting writes whenever it changes. */
export function onQueueChange(l: (n: number) => void): void {
  listeners.add(l);
}

let flushing = false;
/**
 * Send every waiting write, oldest first, with its own key. A write the network still cannot
 * carry stays; one the server answered (even with a refusal) leaves the queue.
 */
export async function flush(send: (q: Queued, form: FormData) => Promise<{ status: number }>): Promise<number> {
  if (flushing) return 0;
  flushing = true;
  let sent = 0;
  try {
    for (const q of await all()) {
      const form = new FormData();
      for (const e of q.entries) {
        if (e.length === 3) form.append(e[0], e[1], e[2]);
        else form.append(e[0], e[1]);
      }
      const r = await send(q, form);
      if (r.status === 0) break;
      await remove(q.id!);
      sent++;
    }
  } finally {
    flushing = false;
    const n = await count();
    listeners.forEach((l) => l(n));
  }
  return sent;
}
