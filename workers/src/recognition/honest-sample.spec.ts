import { describe, expect, it } from 'vitest';
import { honestSample } from './owner-calibration.js';

const rows = ['a1', 'a2', 'a3', 'b1', 'b2', 's1', 's2'].map((id) => ({ image_id: id, individual_id: id[0]! }));

describe('which photos may calibrate an adopted model', () => {
  it('leaves the base model and a linear metric unrestricted', () => {
    expect(honestSample(rows, null)).toBeNull();
    expect(honestSample(rows, { recipe: 'proxy-softmax-linear-v1', report: {} })).toBeNull();
  });

  it('keeps only the photos a fine-tuned backbone never trained on, with its strangers as the open set', () => {
    const h = honestSample(rows, {
      recipe: 'finetuned-mobilenetv2-v3',
      report: { held_out_images: ['a3', 'b2', 's1', 's2'], strangers: ['s'] },
    })!;
    expect(h.rows.map((r) => r.image_id)).toEqual(['a3', 'b2', 's1', 's2']);
    expect([...h.strangers]).toEqual(['s']);
  });

  it('adds the photos enrolled after the version, and counts an individual enrolled wholly after it as a stranger', () => {
    const at = new Date('2026-11-01T00:00:00Z');
    const later = new Date('2026-11-02T00:00:00Z');
    const before = new Date('2026-10-30T00:00:00Z');
    const dated = [
      ...rows.map((r) => ({ ...r, created_at: before })),
      { image_id: 'a4', individual_id: 'a', created_at: later }, // a trained cow's new photo: honest, not a stranger
      { image_id: 'n1', individual_id: 'n', created_at: later }, // a cow enrolled after adoption: a stranger
      { image_id: 'n2', individual_id: 'n', created_at: later.toISOString() },
    ];
    const h = honestSample(dated, {
      recipe: 'finetuned-mobilenetv2-v3',
      report: { held_out_images: ['a3', 'b2', 's1', 's2'], strangers: ['s'] },
      createdAt: at,
    })!;
    expect(h.rows.map((r) => r.image_id)).toEqual(['a3', 'b2', 's1', 's2', 'a4', 'n1', 'n2']);
    expect([...h.strangers].sort()).toEqual(['n', 's']);
    // A v2 version without a record still gains what came after it.
    const v2 = honestSample(dated, { recipe: 'finetuned-mobilenetv2-v2', report: {}, createdAt: at })!;
    expect(v2.rows.map((r) => r.image_id)).toEqual(['a4', 'n1', 'n2']);
    expect([...v2.strangers]).toEqual(['n']);
  });

  it('leaves nothing to fit on for a backbone that did not record what it trained on', () => {
    const h = honestSample(rows, { recipe: 'finetuned-mobilenetv2-v2', report: { held_out: 7 } })!;
    expect(h.rows).toEqual([]);
    expect(h.strangers.size).toBe(0);
  });
});
