// autocannon ships no types; the bench uses only its programmatic call and 'response' event.
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';
  function autocannon(opts: Record<string, unknown>, done: (err: Error | null, result: unknown) => void): EventEmitter;
  export default autocannon;
}
