const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why a value cannot be stored as given, or null. PostgreSQL refuses U+0000 in text and jsonb
 * and refuses lone surrogates in jsonb, so both are a 4xx at the edge instead of a 500 later.
 * Walked without recursion: depth is capped elsewhere, but this must never overflow either.
 */
export function unstorableText(value: unknown): string | null {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return 'U+0000 is not allowed in text';
      if (LONE_SURROGATE.test(v)) return 'text holds an unpaired UTF-16 surrogate';
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, child] of Object.entries(v)) stack.push(k, child);
    }
  }
  return null;
}

/** The first top-level field whose value (or key) cannot be stored, for a 422 that names it. */
export function unstorableField(record: unknown): string | null {
  if (typeof record !== 'object' || record === null) return unstorableText(record) ? 'body' : null;
  for (const [k, v] of Object.entries(record)) if (unstorableText(k) || unstorableText(v)) return k;
  return null;
}
