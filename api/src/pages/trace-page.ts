import { isNoLocation } from '../../../shared/src/domain/trace-code.js';
import type { PublicResolution, Resolution, RestrictedResolution } from '../services/resolve.service.js';

/** Escape text for HTML element content and quoted attributes. */
export function escapeHtml(s: unknown): string {
  return String(s ?? '').replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** No scripts at all on these pages; styles are inline in the page itself. */
export const TRACE_PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
});

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f4ef;color:#222}
main{max-width:40rem;margin:0 auto;padding:1rem}h1{font-size:1.3rem}.card{background:#fff;border-radius:8px;padding:1rem;box-shadow:0 1px 3px #0002}
dt{font-weight:600;margin-top:.5rem}dd{margin:0;word-break:break-all}code{font-size:.9em}`;

function shell(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="vi">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body><main>
${body}
</main></body>
</html>
`;
}

const row = (label: string, value: unknown) => `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd>`;

function publicBody(p: PublicResolution): string {
  const anchor = p.anchor ? `${p.anchor.status}${p.anchor.tx_hash ? ` · ${p.anchor.tx_hash}` : ''}` : 'chưa neo / not anchored';
  const explorer = p.anchor?.explorer_url && /^https:\/\//.test(p.anchor.explorer_url)
    ? `<p><a href="${escapeHtml(p.anchor.explorer_url)}" rel="noopener noreferrer">Xem giao dịch / view transaction</a></p>`
    : '';
  const images = p.record.images.map((cid) => `<li><code>${escapeHtml(cid)}</code></li>`).join('');
  return `<h1>Truy xuất nguồn gốc · ${escapeHtml(p.code)}</h1>
<div class="card"><dl>
${row('Loài / species', p.record.species)}
${p.name ? row('Tên / name', p.name) : ''}
${row('Vị trí (geohash) / coarse location', isNoLocation(p.record.geohash) ? `${p.record.geohash}: không có vị trí khi ghi nhận / no location was given at enrolment` : p.record.geohash)}
${row('Ngày ghi nhận / recorded', p.record.created_at)}
${row('Số ảnh máy chủ giữ / photos held', p.image_count)}
${row('CID bản ghi / record CID', p.record_cid)}
${row('Mã băm / record hash (SHA-256)', p.record_hash)}
${row('Neo / anchor', anchor)}
</dl>${explorer}
<h2>Ảnh trong bản ghi / photos in the record</h2><ul>${images}</ul></div>
<p><a href="/api/resolve/${encodeURIComponent(p.code)}">JSON</a></p>`;
}

function restrictedBody(r: RestrictedResolution): string {
  return `<h1>Truy xuất nguồn gốc · ${escapeHtml(r.code)}</h1>
<div class="card"><p>Chủ vườn chỉ công bố thông tin tóm tắt. / The owner shares a summary only.</p><dl>
${row('Loài / species', r.summary.species ?? '—')}
${row('Ngày ghi nhận / recorded', r.summary.enrolled_on)}
${row('Mã băm / record hash (SHA-256)', r.summary.record_hash)}
${row('Đã neo / anchored', r.summary.anchored ? 'có / yes' : 'chưa / not yet')}
</dl></div>`;
}

/**
 * The one page for every unknown code: fixed bytes, built once, with nothing from the request
 * in it, so a wrong code and a private code give byte-identical answers.
 */
export const UNKNOWN_PAGE = shell(
  'Không tìm thấy / not found',
  `<h1>Không tìm thấy mã này</h1><div class="card"><p>Không tìm thấy mã truy xuất này. / This traceability code was not found.</p></div>`,
);

/** HTML for a resolution: status and page. */
export function tracePage(r: Resolution): { status: number; html: string } {
  if (r.state === 'public') return { status: 200, html: shell(`${r.code} · truy xuất`, publicBody(r)) };
  if (r.state === 'restricted') return { status: 200, html: shell(`${r.code} · truy xuất`, restrictedBody(r)) };
  return { status: 404, html: UNKNOWN_PAGE };
}
