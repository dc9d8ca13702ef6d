/**
 * Fixed-window request counters. In memory when embedded (one process sees every request),
 * in Redis when distributed (several API processes share one budget).
 */
export interface RateLimitStore {
  /** Count one hit on `key` in the current window of `windowMs`; returns the count so far and ms until reset. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetMs: number }>;
  close(): Promise<void>;
  readonly kind: 'memory' | 'redis';
}
