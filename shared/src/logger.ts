import pino from 'pino';
import { currentTrace } from './observability/context.js';

export type Logger = pino.Logger;

/**
 * One JSON logger for the process; request loggers are children carrying the request id. Lines
 * written while a job runs get the job id and the id of the request that enqueued it, from the
 * trace context, so handlers need not pass ids around.
 */
export function createLogger(level: string, name = 'markless'): Logger {
  return pino({
    name,
    level,
    redact: ['req.headers.authorization', 'req.headers.cookie', 'password', 'token'],
    mixin() {
      const t = currentTrace();
      return t.jobId ? { jobId: t.jobId, reqId: t.requestId } : {};
    },
  });
}
