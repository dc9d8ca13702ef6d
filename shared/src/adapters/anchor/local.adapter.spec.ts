import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyCheckpointLog, type SignedCheckpoint } from '../../evidence/checkpoint.js';
import { openMigratedPglite } from '../../../../test/support/both-databases.js';
import { createLocalAnchor, loadOrCreateKey } from './local.adapter.js';
import { keyObjectToDidKey } from '../../evidence/did-key.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
const temp = async () => {
  const d = await mkdtemp(path.join(os.tmpdir(), 'markless-anchor-'));
  dirs.push(d);
  return d;
};

describe('local anchor backend', () => {
  it('creates the key once, private to the service, and reuses it across restarts and concurrent starters', async () => {
    const file = path.join(await temp(), 'sub', 'anchor-key.pem');
    const [a, b] = await Promise.all([loadOrCreateKey(file), loadOrCreateKey(file)]);
    expect(keyObjectToDidKey(a)).toBe(keyObjectToDidKey(b));
    expect(keyObjectToDidKey(await loadOrCreateKey(file))).toBe(keyObjectToDidKey(a));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readFile(file, 'utf8')).toContain('BEGIN PRIVATE KEY');
  });

  it('appends a linked, signed log that verifies, even under concurrent anchors', async () => {
    const { db, drop } = await openMigratedPglite();
    const backend = await createLocalAnchor({ db, keyFile: path.join(await temp(), 'k.pem'), logId: 'test' });
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        db.transaction((tx) => backend.anchor(tx, { entity: `tree/t${i}`, size: i + 1, root_hex: String(i).repeat(64) })),
      ),
    );
    const log = (await db.query<{ checkpoint: SignedCheckpoint }>('select checkpoint from checkpoint_log order by seq')).rows.map(
      (r) => r.checkpoint,
    );
    expect(log.map((c) => c.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(verifyCheckpointLog(log, backend.publicKey!)).toEqual({ ok: true });
    expect((await backend.health()).ok).toBe(true);
    // A rewritten checkpoint breaks the health check.
    await db.query(`update checkpoint_log set checkpoint = jsonb_set(checkpoint, '{size}', '99') where seq = 3`);
    expect(await backend.health()).toMatchObject({ ok: false, detail: { log_ok: false } });
    await drop();
  });
});
