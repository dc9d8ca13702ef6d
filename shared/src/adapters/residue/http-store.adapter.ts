import { z } from 'zod';
import type { ResidueStore, Stamp } from '../../ports/residue-store.port.js';

const StampBody = z.object({
  stamp_id: z.string().min(1),
  commodity: z.string().max(200).optional(),
  measurements: z
    .array(
      z.object({
        analyte: z.string().min(1).max(200),
        value: z.number().finite().min(0),
        unit: z.string().min(1).max(20),
        commodity: z.string().max(200).optional(),
      }),
    )
    .max(200),
});

/** Largest stamp body read; a store that streams more is treated as failing. */
const MAX_BODY = 1_000_000;

/**
 * Reads stamps over HTTP: `GET {base}/stamps/{id}` answering JSON
 * `{stamp_id, commodity?, measurements: [{analyte, value, unit, commodity?}]}`. The whole
 * exchange, body included, must finish within `timeoutMs`; a stamp id in the answer must be the
 * one asked for.
 */
export function createHttpResidueStore(baseUrl: string, timeoutMs: number): ResidueStore {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    kind: 'http',
    async fetchStamp(stampId: string): Promise<Stamp> {
      const res = await fetch(`${base}/stamps/${encodeURIComponent(stampId)}`, {
        signal: AbortSignal.timeout(timeoutMs),
        headers: { accept: 'application/json' },
      });
      if (!res.ok) throw new Error(`residue store answered ${res.status}`);
      const text = await res.text();
      if (text.length > MAX_BODY) throw new Error('residue store answer too large');
      const body = StampBody.parse(JSON.parse(text));
      if (body.stamp_id !== stampId) throw new Error('residue store answered another stamp');
      return body;
    },
  };
}
