import { describe, expect, it, vi } from 'vitest';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { ViewRow } from '../../../shared/src/repos/views.repo.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import { createViewsService, type ViewsDeps } from './views.service.js';

const db = strictMock<Queryable>({}, 'db');
const CALLER = '11111111-1111-4111-8111-111111111111';
const TREE = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const at = new Date('2026-11-01T08:00:00Z');
const unit = (v: number[]) => {
  const n = Math.hypot(...v);
  return new Uint8Array(new Float32Array(v.map((x) => x / n)).buffer);
};
const view = (id: string, over: Partial<ViewRow> = {}): ViewRow => ({
  image_id: id,
  cid: `cid-${id}`,
  source: 'enroll',
  in_record: true,
  width: 640,
  height: 480,
  created_at: at,
  model_version: 'v1',
  global: unit([1, 0, 0]),
  local: null,
  quality: { sharpness: 0.9 },
  ...over,
});

const granted = vi.fn(async () => ({ id: TREE, owner_id: CALLER, standing: 'read' as const }));
function service(views: Partial<ViewsDeps['views']>, access: ViewsDeps['trees']['access'] = granted) {
  return createViewsService({ db, views: strictMock<ViewsDeps['views']>(views, 'views'), trees: { access } });
}

describe('views service', () => {
  it('answers a missing individual and another account’s the same 404, reading no photo', async () => {
    const s = service({}, async () => {
      throw ERRORS.notFound();
    });
    await expect(s.list(CALLER, TREE, true)).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });

  it('asks for read access on the kind, and lists the views without their embeddings', async () => {
    const ofIndividual = vi.fn(async () => [view('a'), view('b', { quality: null, model_version: null, global: null, in_record: false })]);
    const out = await service({ ofIndividual }).list(CALLER, TREE, false, 'fruit');
    expect(granted).toHaveBeenLastCalledWith(CALLER, TREE, 'read', 'fruit');
    expect(ofIndividual).toHaveBeenCalledWith(db, TREE);
    expect(out).toEqual({
      tree_id: TREE,
      views: [
        {
          image_id: 'a',
          cid: 'cid-a',
          source: 'enroll',
          in_record: true,
          width: 640,
          height: 480,
          quality: { sharpness: 0.9 },
          model_version: 'v1',
          created_at: at.toISOString(),
        },
        {
          image_id: 'b',
          cid: 'cid-b',
          source: 'enroll',
          in_record: false,
          width: 640,
          height: 480,
          quality: {},
          model_version: null,
          created_at: at.toISOString(),
        },
      ],
    });
  });

  it('on request measures the views of the most common model version only, in words for the kind', async () => {
    const rows = [view('a'), view('b', { global: unit([1, 0.01, 0]) }), view('c', { model_version: 'v0', global: unit([0, 1, 0]) })];
    const out = await service({ ofIndividual: async () => rows }).list(CALLER, TREE, true);
    expect(out.views_measured).toBe(2);
    expect(out.features).toEqual([expect.objectContaining({ part: 'overall', band: 'cao', samples: 1 })]);
    expect(out.features_vi).toContain('Qua 2 ảnh');
  });

  it('says how many usable views there are when fewer than two can be measured', async () => {
    const out = await service({ ofIndividual: async () => [view('a')] }).list(CALLER, TREE, true, 'animal');
    expect(out).toMatchObject({ views_measured: 1, features: [] });
    expect(out.features_vi).toContain('con vật');
  });
});
