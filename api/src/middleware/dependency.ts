import { AppError } from '../../../shared/src/domain/errors.js';
import type { Config } from '../../../shared/src/config/config.js';

/** What the service cannot work without, in distributed mode. */
export type Dependency = 'database' | 'redis' | 'blobs';

const NET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);
// PostgreSQL SQLSTATEs of a server shutting down, starting up or gone (classes 08 and 57P).
const PG_DOWN = /^(08\d\d\d|57P0[1-3])$/;
const PG_TEXT =
  /Connection terminated|terminating connection|database system is (starting up|shutting down)|timeout exceeded when trying to connect|Client has encountered a connection error/i;
const REDIS_TEXT = /Connection is closed|Stream isn't writeable|enableOfflineQueue|max retries per request|MaxRetriesPerRequest/i;

/** Which dependency listens on which port, from the configured URLs. */
export function dependencyPorts(c: Config): Map<number, Dependency> {
  const m = new Map<number, Dependency>();
  const add = (url: string | undefined, d: Dependency, fallback: number) => {
    if (!url) return;
    const u = new URL(url);
    m.set(Number(u.port || fallback), d);
  };
  add(c.DATABASE_URL, 'database', 5432);
  add(c.REDIS_URL, 'redis', 6379);
  add(c.S3_ENDPOINT, 'blobs', c.S3_ENDPOINT?.startsWith('https') ? 443 : 80);
  return m;
}

/**
 * The dependency an error says is unreachable, or null when the error is something else (a bug,
 * which stays a 500). Network errors are told apart by the port they were aimed at; driver
 * errors without a port by their code or text.
 */
export function unreachableDependency(err: unknown, ports: Map<number, Dependency>, depth = 0): Dependency | null {
  const e = err as { code?: unknown; port?: unknown; message?: unknown; cause?: unknown; errors?: unknown[] } | null;
  if (!e || typeof e !== 'object' || depth > 4) return null;
  const code = typeof e.code === 'string' ? e.code : '';
  if (NET_CODES.has(code) && ports.has(Number(e.port))) return ports.get(Number(e.port))!;
  if (PG_DOWN.test(code) || PG_TEXT.test(String(e.message ?? ''))) return 'database';
  if (REDIS_TEXT.test(String(e.message ?? ''))) return 'redis';
  for (const inner of [...(Array.isArray(e.errors) ? e.errors : []), e.cause]) {
    const d = unreachableDependency(inner, ports, depth + 1);
    if (d) return d;
  }
  return null;
}

/** 503 with Retry-After, naming the dependency (never its address). */
export const dependencyDown = (dependency: Dependency, retryAfterS: number) =>
  new AppError(503, 'dependency_unavailable', { dependency, retry_after: retryAfterS }, { 'Retry-After': String(retryAfterS) });
