/**
 * The model registrations table (issue 17), as both the API (report) and the workers (register,
 * promote, shadow scoring) read it. Registering itself is a job (`model_register`): it re-embeds photos.
 */
import type { Container } from '../container.js';
import { labelIdentity } from '../datasci/export-format.js';
import type { Database, Queryable } from '../ports/database.port.js';

export interface Registration {
  id: string;
  name: string;
  version: string;
  dir: string;
  status: 'shadow' | 'serving' | 'retired';
  shadow_share: number;
  sha256: string;
  licence: string;
}

export async function listRegistrations(c: Pick<Container, 'db'>): Promise<Registration[]> {
  return (
    await c.db.query<Registration>(
      'select id, name, version, dir, status, shadow_share, sha256, licence from model_registrations order by created_at',
    )
  ).rows;
}

/** Per registration: requests scored, agreement with the served answer, and accuracy of both on labelled ones. */
export async function shadowReport(c: Pick<Container, 'db'>) {
  const rows = await c.db.query<{
    registration_id: string;
    top1: string | null;
    served_top1: string | null;
    agrees: boolean;
    label: string | null;
    correct_id: string | null;
  }>(
    `select s.registration_id, s.top1, s.served_top1, s.agrees, v.verdict as label, v.correct_id
     from shadow_scores s left join identify_verdicts v on v.query_id = s.query_id and v.owner_id = s.owner_id`,
  );
  return (await listRegistrations(c)).map((reg) => {
    const mine = rows.rows.filter((r) => r.registration_id === reg.id);
    const labelled = mine.filter((r) => r.label && (r.label === 'unknown_ok' || labelIdentity(r.label, r.correct_id, r.served_top1)));
    const right = (top: string | null, r: (typeof mine)[number]) => (top ?? '') === labelIdentity(r.label, r.correct_id, r.served_top1);
    return {
      model: `${reg.name}@${reg.version}`,
      status: reg.status,
      shadow_share: reg.shadow_share,
      sha256: reg.sha256,
      licence: reg.licence,
      scored: mine.length,
      agreement: mine.length ? mine.filter((r) => r.agrees).length / mine.length : null,
      labelled: labelled.length,
      shadow_accuracy: labelled.length ? labelled.filter((r) => right(r.top1, r)).length / labelled.length : null,
      served_accuracy: labelled.length ? labelled.filter((r) => right(r.served_top1, r)).length / labelled.length : null,
    };
  });
}

/** A registration by model name and version, if registered. */
export async function registrationByRef(
  db: Queryable,
  name: string | undefined,
  version: string | undefined,
): Promise<Registration | null> {
  const r = await db.query<Registration>(
    'select id, name, version, dir, status, shadow_share, sha256, licence from model_registrations where name = $1 and version = $2',
    [name, version],
  );
  return r.rows[0] ?? null;
}

export async function isRegistered(db: Queryable, name: string, version: string): Promise<boolean> {
  const dup = await db.query('select 1 from model_registrations where name = $1 and version = $2', [name, version]);
  return dup.rows.length > 0;
}

/** Stores a registration with its manifest entry (JSON text). */
export async function insertRegistration(db: Queryable, reg: Registration, manifest: string): Promise<void> {
  await db.query(
    'insert into model_registrations (id, name, version, dir, manifest, sha256, licence, status, shadow_share) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
    [reg.id, reg.name, reg.version, reg.dir, manifest, reg.sha256, reg.licence, reg.status, reg.shadow_share],
  );
}

/** In one transaction: the registration serving now retires and `id` serves. */
export async function promoteRegistration(db: Database, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(`update model_registrations set status = 'retired' where status = 'serving'`);
    await tx.query(`update model_registrations set status = 'serving', promoted_at = now() where id = $1`, [id]);
  });
}

/** The registration serving now (id, name, version), if one is. */
export async function servingRegistration(db: Queryable): Promise<Pick<Registration, 'id' | 'name' | 'version'> | undefined> {
  return (await db.query<Registration>(`select id, name, version from model_registrations where status = 'serving'`)).rows[0];
}

/** The retired registration promoted most recently, if any. */
export async function lastPromotedRetired(db: Queryable): Promise<Pick<Registration, 'id' | 'name' | 'version'> | undefined> {
  return (
    await db.query<{ id: string; name: string; version: string }>(
      `select id, name, version from model_registrations where status = 'retired' and promoted_at is not null order by promoted_at desc limit 1`,
    )
  ).rows[0];
}

/** In one transaction: `currentId` goes back to shadow and `previousId` (when given) serves again. */
export async function rollbackRegistration(db: Database, currentId: string, previousId: string | null): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(`update model_registrations set status = 'shadow' where id = $1`, [currentId]);
    if (previousId) await tx.query(`update model_registrations set status = 'serving' where id = $1`, [previousId]);
  });
}

/** The folder of the serving registration's model, or null while none serves (the bundled model does). */
export async function servingDir(db: Queryable): Promise<string | null> {
  const r = await db.query<{ dir: string }>(`select dir from model_registrations where status = 'serving'`);
  return r.rows[0]?.dir ?? null;
}

/** One identify request scored by a shadow model beside the served answer; jsonb columns as JSON text. */
export interface ShadowScore {
  query_id: string;
  registration_id: string;
  owner_id: string;
  /** JSON text of the shadow engine's model. */
  engine: string;
  verdict: string;
  top1: string | null;
  probability: number | null;
  served_top1: string | null;
  agrees: boolean;
  /** JSON text of the shadow answer's candidates. */
  candidates: string;
}

/** Stores a shadow score; a request already scored by the registration keeps its first. */
export async function insertShadowScore(db: Queryable, s: ShadowScore): Promise<void> {
  await db.query(
    `insert into shadow_scores (query_id, registration_id, owner_id, engine, verdict, top1, probability, served_top1, agrees, candidates)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) on conflict do nothing`,
    [s.query_id, s.registration_id, s.owner_id, s.engine, s.verdict, s.top1, s.probability, s.served_top1, s.agrees, s.candidates],
  );
}
