import pino from 'pino';

export type Logger = pino.Logger;

/** One JSON logger for the process; request loggers are children carrying the request id. */
export function createLogger(level: string, name = 'markless'): Logger {
  return pino({ name, level, redact: ['req.headers.authorization', 'req.headers.cookie', 'password', 'token'] });
}
