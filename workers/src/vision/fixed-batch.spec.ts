import { describe, expect, it } from 'vitest';
import { runChunked } from './fixed-batch.js';
import { openSession, registry } from './registry.js';

describe('runChunked', () => {
  it('gives each item the output a whole-batch run gives it, the padded last chunk included', async () => {
    const entry = registry().pick('local-features')!;
    const { session } = await openSession(entry, { provider: 'cpu' });
    const [n, H, W] = [5, 64, 96];
    const input = new Float32Array(n * 3 * H * W);
    let seed = 7;
    for (let i = 0; i < input.length; i++) input[i] = (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const whole = await runChunked(session, 'cpu', entry.inputs[0]!.name, input, [n, 3, H, W]);
    const chunked = await runChunked(session, 'cpu', entry.inputs[0]!.name, input, [n, 3, H, W], 2);
    expect(Object.keys(chunked).sort()).toEqual(Object.keys(whole).sort());
    for (const k of Object.keys(whole)) {
      expect(chunked[k]!.length).toBe(whole[k]!.length);
      let worst = 0;
      for (let i = 0; i < whole[k]!.length; i++) worst = Math.max(worst, Math.abs(chunked[k]![i]! - whole[k]![i]!));
      expect(worst).toBeLessThan(1e-4);
    }
    // Items differ from one another, so an output shifted by one item would fail above.
    const per = whole.feats!.length / n;
    expect(whole.feats!.subarray(0, per)).not.toEqual(whole.feats!.subarray(per, 2 * per));
  });
});
