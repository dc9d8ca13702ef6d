import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import type { Polygon } from '../evidence/side-record.js';
import { farmsRepo } from './farms.repo.js';

describe.each(BOTH_DATABASES)('farm boundaries on $name', ({ open }) => {
  const owner = randomUUID();
  const chain = `${owner}/trai`;
  const square = {
    type: 'Polygon',
    coordinates: [
      [
        [1, 1],
        [2, 1],
        [2, 2],
        [1, 1],
      ],
    ],
  } as unknown as Polygon;

  const opened = openDatabase(open, async () => {
    await opened.db.query(`insert into accounts (id, username) values ($1, 'owner')`, [owner]);
    await opened.db.query(`insert into farms (farm_id, owner_id, chain_id) values ('trai', $1, $2)`, [owner, chain]);
  });

  it('reads no boundary before one is set, then the one set with the database’s time', async () => {
    expect(await farmsRepo.boundary(opened.db, chain)).toEqual({ boundary: null, updated_at: null });
    const at = await farmsRepo.setBoundary(opened.db, chain, square);
    expect(at).toBeInstanceOf(Date);
    expect(await farmsRepo.boundary(opened.db, chain)).toEqual({ boundary: square, updated_at: at });
    expect(await farmsRepo.latestBoundaryRecord(opened.db, chain)).toBeNull();
  });
});
