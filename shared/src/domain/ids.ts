/**
 * Identifiers as the database keeps them. Every entity id is a UUID (any version, any case); a
 * caller's id that is not one names nothing, so a service can answer "not found" without asking
 * the database (which would otherwise fail on the cast to `uuid`).
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID in its canonical 8-4-4-4-12 hex form (either case, nothing around it). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
