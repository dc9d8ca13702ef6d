/**
 * The model registrations table (issue 17), as both the API (report) and the workers (register,
 * promote, shadow scoring) read it. Registering itself is a job (`model_register`): it re-embeds photos.
 */
import type { Container } from '../container.js';
import { labelIdentity } from '../datasci/export-format.js';

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
