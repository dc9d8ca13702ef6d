import { describe, expect, it } from 'vitest';
import { honestSample } from './owner-calibration.js';

const rows = ['a1', 'a2', 'a3', 'b1', 'b2', 's1', 's2'].map((id) => ({ image_id: id, individual_id: id[0]! }));

describe('which photos may calibrate an adopted model', () => {
  it('leaves the base model and a linear metric unrestricted', () => {
    expect(honestSample(rows, null)).toBeNull();
    expect(honestSample(rows, { recipe: 'proxy-softmax-linear-v1', report: {} })).toBeNull();
  });

  it('keeps only the photos a fine-tuned backbone never trained on, with its strangers as the open set', () => {
    const h = honestSample(rows, { recipe: 'finetuned-mobilenetv2-v3', report: { held_out_images: ['a3', 'b2', 's1', 's2'], strangers: ['s'] } })!;
    expect(h.rows.map((r) => r.image_id)).toEqual(['a3', 'b2', 's1', 's2']);
    expect([...h.strangers]).toEqual(['s']);
  });

  it('leaves nothing to fit on for a backbone that did not record what it trained on', () => {
    const h = honestSample(rows, { recipe: 'finetuned-mobilenetv2-v2', report: { held_out: 7 } })!;
    expect(h.rows).toEqual([]);
    expect(h.strangers.size).toBe(0);
  });
});
