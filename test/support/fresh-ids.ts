import { randomUUID } from 'node:crypto';

type Ids<N extends number, T extends string[] = []> = T['length'] extends N ? T : Ids<N, [...T, string]>;

/** `n` new UUIDs, typed as a tuple of `n` strings so a spec can destructure them by name. */
export const freshIds = <N extends number>(n: N): Ids<N> => Array.from({ length: n }, () => randomUUID()) as Ids<N>;
