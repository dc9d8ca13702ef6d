// The job host thread runs TypeScript like the rest of the service: register tsx's loader in
// this thread (worker threads do not inherit the parent's loader hooks on Node 20), then start.
import { register } from 'tsx/esm/api';

register();
await import(new URL('./host-thread.ts', import.meta.url).href);
