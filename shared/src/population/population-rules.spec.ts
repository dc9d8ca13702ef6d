import { describe, expect, it } from 'vitest';
import { alertOut, dropIsSudden, median, type AlertRow } from './population-rules.js';

describe('population alert rules', () => {
  it('takes the median of the recent counts (null for none)', () => {
    expect(median([])).toBeNull();
    expect(median([7])).toBe(7);
    expect(median([10, 2, 11])).toBe(10);
    expect(median([10, 11, 2, 12])).toBe(10.5);
  });

  it('calls a drop sudden at 20% of the baseline and at least one head, not below', () => {
    expect(dropIsSudden(10, 8)).toBe(true);
    expect(dropIsSudden(10, 9)).toBe(false);
    expect(dropIsSudden(10, 10)).toBe(false);
    expect(dropIsSudden(10, 12)).toBe(false);
    expect(dropIsSudden(3, 2)).toBe(true);
    expect(dropIsSudden(1, 0)).toBe(true);
    expect(dropIsSudden(100, 81)).toBe(false);
    expect(dropIsSudden(100, 80)).toBe(true);
  });

  it('renders each rule as one sentence in the asked language, naming the animal by name or DID', () => {
    const row: AlertRow = {
      id: 'a',
      farm_id: 'f',
      zone: 'north',
      count_id: 'c',
      rule: 'not_seen',
      individual_id: '6f1c1f0e-8c5e-4a57-9a1b-3f2d9d7c1e55',
      facts: { name: null, days_unseen: 9 },
      created_at: new Date('2026-11-23T00:00:00Z'),
      resolved_at: null,
      resolved_note: null,
    };
    const out = alertOut(row, 'en');
    expect(out.animal_did).toBe('did:markless:animal:6f1c1f0e-8c5e-4a57-9a1b-3f2d9d7c1e55');
    expect(out.message).toBe(`Animal ${out.animal_did} in zone north has not been re-identified for 9 days.`);
    expect(alertOut({ ...row, facts: { name: 'Bông', days_unseen: 9 } }, 'vi').message).toBe(
      'Con vật Bông ở vùng north chưa được nhận dạng lại trong 9 ngày.',
    );
  });
});
