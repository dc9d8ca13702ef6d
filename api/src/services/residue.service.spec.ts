import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { interpret } from '../../../shared/src/domain/residue/interpret.js';
import { loadMrlTable, type MrlTable } from '../../../shared/src/domain/residue/limits.js';
import type { Stamp } from '../../../shared/src/ports/residue-store.port.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import { createResidueService, type ResidueDeps } from './residue.service.js';

let table: MrlTable;
beforeAll(async () => {
  table = await loadMrlTable(path.resolve('shared/data/residue/mrls.json'));
});

type Store = NonNullable<ResidueDeps['store']>;

function service(over: Partial<ResidueDeps> = {}) {
  return createResidueService({
    store: strictMock<Store>({}, 'store'),
    loadTable: async () => table,
    care: strictMock<ResidueDeps['care']>({ getCatalogue: async () => null }, 'care'),
    logger: strictMock<ResidueDeps['logger']>({}, 'logger'),
    ...over,
  });
}

const stamp = (over: Partial<Stamp> = {}): Stamp => ({
  stamp_id: 's-1',
  commodity: 'durian',
  measurements: [{ analyte: 'chlorpyrifos', value: 0.005, unit: 'mg/kg' }],
  ...over,
});

describe('residue service: interpreting stamps fails closed', () => {
  it('answers UNKNOWN, unresolved, when no measurement store is configured', async () => {
    const answer = await service({ store: null }).interpretByStamps({ stamps: ['s-1'] }, 'en');
    expect(answer).toMatchObject({ verdict: 'UNKNOWN', resolved: false, residues: [] });
  });

  it('answers UNKNOWN and logs a warning naming the stamps when the store fails', async () => {
    const warn = vi.fn();
    const s = service({
      store: strictMock<Store>({ fetchStamp: async () => Promise.reject(new Error('timeout')) }),
      logger: strictMock<ResidueDeps['logger']>({ warn: warn as never }),
    });
    expect(await s.interpretByStamps({ stamps: ['s-1', 's-2'] }, 'vi')).toMatchObject({ verdict: 'UNKNOWN', resolved: false });
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ stamps: ['s-1', 's-2'] }), expect.any(String));
  });

  it('answers UNKNOWN when a stamp reports a unit it cannot convert, never a guess', async () => {
    const warn = vi.fn();
    const s = service({
      store: strictMock<Store>({
        fetchStamp: async () => stamp({ measurements: [{ analyte: 'chlorpyrifos', value: 5, unit: 'grains' }] }),
      }),
      logger: strictMock<ResidueDeps['logger']>({ warn: warn as never }),
    });
    expect(await s.interpretByStamps({ stamps: ['s-1'] }, 'en')).toMatchObject({ verdict: 'UNKNOWN', resolved: false });
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('answers UNKNOWN, without a warning, when the stamps hold no measurement', async () => {
    const s = service({ store: strictMock<Store>({ fetchStamp: async () => stamp({ measurements: [] }) }) });
    expect(await s.interpretByStamps({ stamps: ['s-1'] }, 'en')).toMatchObject({ verdict: 'UNKNOWN', resolved: false });
  });
});

describe('residue service: interpreting what the store measured', () => {
  it('interprets every stamp’s measurements as if typed in, units tidied and the stamp’s commodity inherited', async () => {
    const fetchStamp = vi.fn(async (id: string) =>
      id === 's-1'
        ? stamp({ measurements: [{ analyte: 'chlorpyrifos', value: 0.005, unit: ' MG/KG ' }] })
        : stamp({
            stamp_id: 's-2',
            commodity: 'mango',
            measurements: [{ analyte: 'chlorpyrifos', value: 20, unit: 'ug/kg', commodity: 'coffee' }],
          }),
    );
    const s = service({ store: strictMock<Store>({ fetchStamp }) });
    const answer = await s.interpretByStamps({ stamps: ['s-1', 's-2'], region: 'lam_dong' }, 'en');
    const expected = interpret(
      {
        region: 'lam_dong',
        measurements: [
          { analyte: 'chlorpyrifos', value: 0.005, unit: 'mg/kg', commodity: 'durian' },
          { analyte: 'chlorpyrifos', value: 20, unit: 'ug/kg', commodity: 'coffee' },
        ],
      },
      table,
      null,
      'en',
    );
    expect(answer).toEqual({ ...expected, resolved: true });
    expect(answer.verdict).toBe('WARNING');
    expect(fetchStamp.mock.calls.map(([id]) => id)).toEqual(['s-1', 's-2']);
  });

  it('reads the MRL table once, however many interpretations follow', async () => {
    const loadTable = vi.fn(async () => table);
    const s = service({ loadTable });
    const input = { commodity: 'durian', measurements: [{ analyte: 'chlorpyrifos', value: 0.5, unit: 'mg/kg' as const }] };
    const first = await s.interpret(input, 'vi');
    await s.interpret(input, 'en');
    expect(loadTable).toHaveBeenCalledTimes(1);
    expect(first).toEqual(interpret(input, table, null, 'vi'));
  });
});
