import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { scopeOfJob } from '../access/owner-scope.js';
import { learnedModelsRepo, type NewLearnedModel } from './learned-models.repo.js';

const base = { name: 'm', version: '1' };
const list = (b: Uint8Array) => [...b];

/** Learned versions and their embeddings, written and read on both databases the service runs on. */
describe.each(BOTH_DATABASES)('learned models on $name', ({ open }) => {
  const ownerId = randomUUID();
  const owner = scopeOfJob({ owner_id: ownerId });
  const [cow, img1, img2] = [randomUUID(), randomUUID(), randomUUID()];
  const version = (n: number, status: NewLearnedModel['status'], job: string | null = null): Omit<NewLearnedModel, 'owner_id'> => ({
    kind: 'animal',
    version: n,
    recipe: 'proxy-softmax-linear-v1',
    base_model: base.name,
    base_version: base.version,
    status,
    params: Uint8Array.from([n, n]),
    report: { n },
    job_key: job,
  });

  const opened = openDatabase(open, async (db) => {
    await db.query(`insert into accounts (id, username) values ($1, 'owner')`, [ownerId]);
    await db.query(`insert into individuals (id, owner_id, kind) values ($1, $2, 'animal')`, [cow, ownerId]);
    await db.query(`insert into blobs (cid, size, content_type) values ('l1', 1, 'image/jpeg'), ('l2', 1, 'image/jpeg')`);
    await db.query(
      `insert into images (id, individual_id, owner_id, cid, source, created_at) values
        ($1, $3, $4, 'l1', 'enrol', '2000-01-01T00:00:00Z'), ($2, $3, $4, 'l2', 'enrol', '2100-01-01T00:00:00Z')`,
      [img1, img2, cow, ownerId],
    );
  });

  it('numbers versions, stores them and reads the adopted one, one by its job, and the list without bytes', async () => {
    const { db } = opened;
    expect(await learnedModelsRepo.nextVersion(db, owner, 'animal')).toBe(1);
    await db.transaction(async (tx) => {
      await learnedModelsRepo.lock(tx, owner, 'animal');
      await learnedModelsRepo.insert(tx, owner, version(1, 'adopted', 'job-1'));
    });
    expect(await learnedModelsRepo.nextVersion(db, owner, 'animal')).toBe(2);
    const adopted = await learnedModelsRepo.adopted(db, owner, 'animal', base);
    expect({ ...adopted!, params: list(adopted!.params) }).toEqual({
      owner_id: ownerId,
      kind: 'animal',
      version: 1,
      recipe: 'proxy-softmax-linear-v1',
      base_model: 'm',
      base_version: '1',
      status: 'adopted',
      params: [1, 1],
      report: { n: 1 },
    });
    expect(await learnedModelsRepo.adopted(db, owner, 'animal', { name: 'm', version: '2' })).toBeNull();
    expect((await learnedModelsRepo.byJob(db, owner, 'animal', 'job-1'))?.version).toBe(1);
    expect(await learnedModelsRepo.byJob(db, owner, 'animal', 'job-x')).toBeNull();
    expect(await learnedModelsRepo.adoptedNumber(db, owner, 'animal')).toBe(1);
    expect(await learnedModelsRepo.adoptedRecipe(db, owner, 'animal')).toEqual({ version: 1, recipe: 'proxy-softmax-linear-v1' });
    expect(await learnedModelsRepo.adoptedRecipe(db, owner, 'tree')).toBeNull();
    const facts = await learnedModelsRepo.facts(db, owner, 'animal', 1);
    expect(facts?.recipe).toBe('proxy-softmax-linear-v1');
    expect(facts?.report).toEqual({ n: 1 });
    expect(await learnedModelsRepo.facts(db, owner, 'animal', 9)).toBeNull();
    // Stored now: only the photo dated after it counts as enrolled after the version.
    expect(await learnedModelsRepo.imagesAfter(db, owner, { kind: 'animal', version: 1 }, [img1, img2])).toEqual([img2]);
  });

  it('retires the adopted version, marks one rolled back and adopts the newest retired one before it again', async () => {
    const { db } = opened;
    await learnedModelsRepo.retireAdopted(db, owner, 'animal');
    await learnedModelsRepo.insert(db, owner, version(2, 'adopted'));
    await learnedModelsRepo.insert(db, owner, version(3, 'rejected'));
    expect((await learnedModelsRepo.list(db, owner, 'animal')).map((v) => [v.version, v.status])).toEqual([
      [3, 'rejected'],
      [2, 'adopted'],
      [1, 'retired'],
    ]);
    expect((await learnedModelsRepo.list(db, owner, 'animal'))[0]).not.toHaveProperty('params');
    await learnedModelsRepo.markRolledBack(db, owner, 'animal', 2);
    expect(await learnedModelsRepo.adoptedNumber(db, owner, 'animal')).toBeNull();
    expect(await learnedModelsRepo.readoptRetiredBefore(db, owner, 'animal', 2)).toBe(1);
    expect(await learnedModelsRepo.adoptedNumber(db, owner, 'animal')).toBe(1);
    // Nothing retired is older than version 1.
    expect(await learnedModelsRepo.readoptRetiredBefore(db, owner, 'animal', 1)).toBeNull();
  });

  it('keeps one embedding per photo and version, and reads back the ones asked for', async () => {
    const { db } = opened;
    const v = { kind: 'animal' as const, version: 1 };
    await learnedModelsRepo.storeEmbedding(db, owner, v, img1, Buffer.from([1, 2, 3]));
    await learnedModelsRepo.storeEmbedding(db, owner, v, img1, Buffer.from([9]));
    const rows = await learnedModelsRepo.embeddings(db, owner, v, [img1, img2]);
    expect(rows.map((r) => [r.image_id, list(r.vector)])).toEqual([[img1, [1, 2, 3]]]);
    expect(await learnedModelsRepo.embeddings(db, owner, { ...v, version: 2 }, [img1])).toEqual([]);
    // Another account's scope finds none of them.
    expect(await learnedModelsRepo.embeddings(db, scopeOfJob({ owner_id: randomUUID() }), v, [img1])).toEqual([]);
  });
});
