// The job host thread runs TypeScript like the rest of the service: register tsx's loader in
// this thread (worker threads do not inherit the parent's loader hooks on Node 20), then start.
// The engine thread of several hosts (role `engine`) starts from the same file.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const entry = workerData?.role === 'engine' ? './engine-thread.ts' : './host-thread.ts';
await import(new URL(entry, import.meta.url).href);
