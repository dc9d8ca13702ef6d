import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DETECT_CONFIDENT, decideSpecies, type FarmSpecies, type LabelledDetection } from './animal-species.js';

const catalogFile = JSON.parse(readFileSync(new URL('../../data/species-catalog.json', import.meta.url), 'utf8')) as {
  species: { id: string; kind: string; detector_class?: string | null }[];
  confusable_groups: { id: string; species: string[] }[];
};
const animals = catalogFile.species.filter((s) => s.kind === 'animal');
const groups = catalogFile.confusable_groups.map((g) => g.species);
const catalogue = animals.map((s) => s.id);
const farmOf = (...ids: string[]): FarmSpecies[] =>
  ids.map((id) => ({ id, detector_class: animals.find((s) => s.id === id)?.detector_class ?? null }));
const det = (label: string, score: number): LabelledDetection => ({ label, score, box: { x: 0, y: 0, width: 10, height: 10 } });

describe('the species catalogue declares what the detector cannot tell apart', () => {
  it('gives every animal species a detector class or null, and groups every pair sharing a class', () => {
    for (const s of animals) expect(s, s.id).toHaveProperty('detector_class');
    for (const a of animals)
      for (const b of animals) {
        if (a.id < b.id && a.detector_class && a.detector_class === b.detector_class) {
          expect(
            groups.some((g) => g.includes(a.id) && g.includes(b.id)),
            `${a.id} and ${b.id} share ${a.detector_class}`,
          ).toBe(true);
        }
      }
    for (const g of groups) for (const id of g) expect(catalogue).toContain(id);
  });
});

describe('decideSpecies: the three detect rules', () => {
  it('rule 1: a farm with no animals offers every catalogue species and asks', () => {
    const d = decideSpecies({ farm: [], groups, catalogue });
    expect(d).toMatchObject({ rule: 'new_farm', species: null, need_confirm: true });
    expect(d.candidates.map((c) => c.species)).toEqual(catalogue);
  });

  it('rule 2: one species proceeds at once without a photo, whatever a detector would say', () => {
    const d = decideSpecies({ farm: farmOf('goat'), groups, catalogue, detections: [det('horse', 0.99)] });
    expect(d).toEqual({
      rule: 'single_species',
      species: 'goat',
      need_confirm: false,
      candidates: [{ species: 'goat', score: null, confusable_with: [] }],
    });
  });

  it('rule 3: confident and not confusable proceeds', () => {
    const d = decideSpecies({ farm: farmOf('cattle', 'horse'), groups, catalogue, detections: [det('horse', 0.4), det('cow', 0.9)] });
    expect(d).toMatchObject({ rule: 'detector', species: 'cattle', need_confirm: false });
    expect(d.candidates).toEqual([{ species: 'cattle', score: 0.9, confusable_with: [] }]);
  });

  it('rule 3: confident but in a confusable group asks, narrowed to the group', () => {
    const d = decideSpecies({ farm: farmOf('cattle', 'zebu', 'horse'), groups, catalogue, detections: [det('cow', 0.95)] });
    expect(d).toMatchObject({ rule: 'detector', species: null, need_confirm: true, reason: 'confusable' });
    expect(d.candidates.map((c) => c.species).sort()).toEqual(['cattle', 'zebu']);
  });

  it('rule 3: a confident sighting of a species outside the farm narrows nothing', () => {
    const d = decideSpecies({ farm: farmOf('cattle', 'pig'), groups, catalogue, detections: [det('cat', 0.9)] });
    expect(d).toMatchObject({ need_confirm: true, reason: 'no_detection' });
    expect(d.candidates.map((c) => c.species).sort()).toEqual(['cattle', 'pig']);
  });

  it('rule 3: a species the detector cannot see is never ruled out', () => {
    const d = decideSpecies({ farm: farmOf('nyala', 'horse'), groups, catalogue, detections: [det('horse', 0.97)] });
    expect(d).toMatchObject({ need_confirm: true, reason: 'confusable' });
    expect(d.candidates.map((c) => c.species)).toEqual(['horse', 'nyala']);
  });

  it('rule 3: below the confidence bar asks; nothing seen offers the whole farm', () => {
    const low = decideSpecies({
      farm: farmOf('cattle', 'horse', 'sheep'),
      groups,
      catalogue,
      detections: [det('horse', DETECT_CONFIDENT - 0.01)],
    });
    expect(low).toMatchObject({ need_confirm: true, reason: 'low_confidence', species: null });
    // A weak sighting rules nothing out: the whole farm, best score first.
    expect(low.candidates.map((c) => c.species)).toEqual(['horse', 'cattle', 'sheep']);
    const none = decideSpecies({ farm: farmOf('cattle', 'horse', 'sheep'), groups, catalogue, detections: [] });
    expect(none).toMatchObject({ need_confirm: true, reason: 'no_detection' });
    expect(none.candidates.map((c) => c.species).sort()).toEqual(['cattle', 'horse', 'sheep']);
  });
});
