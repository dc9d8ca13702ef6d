import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import type { Caller } from '../http/route.js';
import { createAnimalSpeciesService, type AnimalSpeciesDeps } from './animal-species.service.js';

const caller = { account_id: 'owner-1' } as Caller;
const db = strictMock<Queryable>({}, 'db');
const CATALOGUE = path.resolve('shared/data/species-catalog.json');

function service(stored: string[]) {
  const speciesOfFarm = vi.fn(async () => stored);
  const deps: AnimalSpeciesDeps = {
    db,
    individualsRepo: strictMock({ speciesOfFarm }, 'individuals repo'),
    speciesCatalogPath: CATALOGUE,
    // A flow that needs no photo must not upload or queue anything.
    media: strictMock({}, 'media'),
    jobs: strictMock({}, 'jobs'),
  };
  return { s: createAnimalSpeciesService(deps), speciesOfFarm };
}

describe('animal species service', () => {
  it('maps stored spellings onto the catalogue by id, Vietnamese or English name, and keeps unknown names as themselves', async () => {
    const { s, speciesOfFarm } = service(['Bò', 'cattle', 'Goat', 'kỳ lân']);
    const farm = await s.farmSpecies(caller, 'trai');
    expect(speciesOfFarm).toHaveBeenCalledWith(db, scopeOfCaller(caller), 'trai');
    expect(farm).toEqual([
      { id: 'cattle', detector_class: 'cow', spellings: ['Bò', 'cattle'] },
      { id: 'goat', detector_class: 'sheep', spellings: ['Goat'] },
      { id: 'kỳ lân', detector_class: null, spellings: ['kỳ lân'] },
    ]);
  });

  it('decides a one-species farm at once, without a photo, an upload or a job', async () => {
    const { s } = service(['Trâu']);
    const out = await s.detect(caller, 'trai', []);
    expect(out.done).toBe(true);
    expect(((out as { result: unknown }).result as { detection: { detector: unknown; detections: unknown[] } }).detection).toMatchObject({
      detector: null,
      detections: [],
    });
  });

  it('asks for a photo when the farm holds several species and none was sent', async () => {
    const { s } = service(['Bò', 'Dê']);
    await expect(s.detect(caller, 'trai', [])).rejects.toMatchObject({ status: 422, code: 'animal_detect_photo_needed' });
  });
});
