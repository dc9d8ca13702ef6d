/**
 * The third security round's findings, tried against the sweep's service in either mode. Each
 * check returns what went wrong (empty when the service held), so one failing finding does not
 * hide the others.
 */
import sharp from 'sharp';
import { applyConfiguredAdmins } from '../../../shared/src/access/admins.js';
import { loadConfig } from '../../../shared/src/config/config.js';
import { openDatabase } from '../../../shared/src/container.js';
import { createLogger } from '../../../shared/src/logger.js';
import { api } from '../app.js';
import { batchForm, surface } from '../fruit-batch.js';
import type { SweepService } from './service.js';

const PW = 'Bark-and-peel-42';

/**
 * A stranger signed up under a name listed in ADMIN_USERS (the sweep did so): the pass a restart
 * runs with the same setting must still grant nothing.
 */
export async function listedNameAfterRestart(app: SweepService, listed: string): Promise<string[]> {
  const db = app.container?.db ?? (await openDatabase(loadConfig(app.env)));
  try {
    await applyConfiguredAdmins(db, [listed], createLogger('silent'));
  } finally {
    if (!app.container) await db.close();
  }
  const login = await api(app.url, 'POST', '/api/login', { json: { username: listed, password: PW } });
  if (login.status !== 200) return [`the squatter of ${listed} could not log in: ${login.status}`];
  const bad: string[] = [];
  if (login.json.account.is_admin !== false)
    bad.push(`after the restart pass, ${listed} logs in as is_admin ${login.json.account.is_admin}`);
  const feedback = await api(app.url, 'GET', '/api/admin/feedback', { token: login.json.token });
  if (feedback.status !== 403) bad.push(`after the restart pass, ${listed} reads GET /api/admin/feedback: ${feedback.status}`);
  return bad;
}

/** A cookie write with no Origin is refused; a presented token that is no longer valid is a 401 on optional routes. */
export async function sessionsAndCookies(app: SweepService, username: string): Promise<string[]> {
  const bad: string[] = [];
  const login = await api(app.url, 'POST', '/api/login', { json: { username, password: PW } });
  const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
  const bare = await api(app.url, 'POST', '/api/feedback', { form: { note: 'cookie, no origin' }, headers: { cookie } });
  if (bare.status !== 403 || bare.json?.code !== 'origin_forbidden')
    bad.push(`a cookie write without Origin answered ${bare.status} ${bare.text.slice(0, 120)}`);
  const again = await api(app.url, 'POST', '/api/login', { json: { username, password: PW } });
  await api(app.url, 'POST', '/api/logout', { token: again.json.token });
  for (const [what, r] of [
    ['POST /api/feedback', await api(app.url, 'POST', '/api/feedback', { token: again.json.token, form: { note: 'revoked token' } })],
    [
      'GET /api/blobs/{cid}',
      await api(app.url, 'GET', '/api/blobs/bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy', { token: again.json.token }),
    ],
  ] as const) {
    if (r.status !== 401) bad.push(`${what} with a revoked token answered ${r.status}`);
  }
  return bad;
}

/** Bidirectional marks leave batch file names; a care photo is read from `photo`; a stray file field is named. */
export async function namesAndFields(app: SweepService, token: string): Promise<string[]> {
  const bad: string[] = [];
  const b = await api(app.url, 'POST', '/api/fruit/batch', {
    token,
    body: batchForm([{ name: 'bill\u202Egpj.exe', bytes: await surface(977) }]),
  });
  if (b.status !== 202) return [`the batch with a bidi name answered ${b.status} ${b.text.slice(0, 120)}`];
  const rows = (await api(app.url, 'GET', `/api/fruit/batch/${b.json.batch_id}`, { token })).json.rows as Array<{ file_name: string }>;
  if (rows[0]?.file_name !== 'billgpj.exe') bad.push(`a batch row keeps the name ${JSON.stringify(rows[0]?.file_name)}`);
  const csv = await (
    await fetch(`${app.url}/api/fruit/batch/${b.json.batch_id}/results.csv`, { headers: { authorization: `Bearer ${token}` } })
  ).text();
  if (/[\u202A-\u202E\u2066-\u2069\u200B-\u200F]/.test(csv)) bad.push('the results CSV holds a bidi or zero-width mark');
  const form = (field: string) => {
    const f = new FormData();
    f.append(field, new Blob([new Uint8Array(Buffer.from('not an image'))], { type: 'image/png' }), 'label.png');
    return f;
  };
  const photo = await api(app.url, 'POST', '/api/care/match', { token, body: form('photo') });
  if (photo.json?.code !== 'file_wrong_type')
    bad.push(`care match ignored a file in \`photo\`: ${photo.status} ${photo.text.slice(0, 120)}`);
  const stray = await api(app.url, 'POST', '/api/care/match', { token, body: form('picture') });
  if (stray.status !== 422 || stray.json?.code !== 'file_field_unexpected')
    bad.push(`a file in \`picture\` answered ${stray.status} ${stray.text.slice(0, 120)}`);
  return bad;
}

/** Three huge label photos at once from one account: one is read, the others are refused with Retry-After. */
export async function ocrFlood(app: SweepService, token: string): Promise<string[]> {
  const big = await sharp({ create: { width: 6500, height: 6500, channels: 3, background: '#ffffff' } })
    .png({ compressionLevel: 9 })
    .toBuffer();
  const send = () => {
    const f = new FormData();
    f.append('files', new Blob([new Uint8Array(big)], { type: 'image/png' }), 'label.png');
    return api(app.url, 'POST', '/api/care/match', { token, body: f });
  };
  const answers = await Promise.all([send(), send(), send()]);
  const statuses = answers.map((a) => a.status).sort();
  const refused = answers.filter((a) => a.status === 429);
  if (statuses.join() !== '200,429,429' || refused.some((a) => !a.headers.get('retry-after'))) {
    return [`three huge OCR photos at once from one account answered ${statuses.join(', ')}`];
  }
  return [];
}
