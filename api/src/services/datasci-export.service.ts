import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import { AppError } from '../../../shared/src/domain/errors.js';
import type { Logger } from '../../../shared/src/logger.js';
import type { BlobStore } from '../../../shared/src/ports/blob-store.port.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { DatasciExportRepo, ExportOwners } from '../../../shared/src/repos/datasci-export.repo.js';
import type { IndividualsRepo } from '../../../shared/src/repos/individuals.repo.js';
import {
  csvHeader,
  csvLine,
  decodeCursor,
  encodeCursor,
  imagePath,
  labelIdentity,
  type ExportCandidate,
  type ExportCursor,
  type ExportRow,
} from '../../../shared/src/datasci/export-format.js';

/**
 * Whose data: the caller's own (scopeOfCaller), or what an operator chose on the admin route, one
 * owner's or every owner's (scopeChosenByOperator, shared/src/access/owner-scope.ts).
 */
export type ExportScope = ExportOwners;

/** One page of the export, ready to stream. */
export interface ExportPage {
  rows: ExportRow[];
  /** Items (photos of the gallery, queries) in the whole scope, and before this page: progress. */
  total: number;
  before: number;
  next: string | null;
  stream: Readable;
}

/** A row with its sort key (creation time as text, keeping microseconds, and id) for the cursor. */
type KeyedRow = ExportRow & { _key: { at: string; id: string } };

const START: ExportCursor = { part: 'gallery', at: '1970-01-01T00:00:00Z', id: '00000000-0000-0000-0000-000000000000' };

/**
 * The registry models behind an engine identity: the global model, then each `name@version`
 * part of its version (see RecognitionEngine.model), without the pipeline revision.
 */
export function modelsOfEngine(m: { name: string; version: string } | null | undefined): { name: string; version: string }[] {
  if (!m) return [];
  const [first, ...rest] = m.version.split('+');
  return [
    { name: m.name, version: first ?? '' },
    ...rest.filter((p) => p.includes('@')).map((p) => ({ name: p.split('@')[0]!, version: p.split('@')[1]! })),
  ];
}

/**
 * Labelled data out (issue 17): enrolled photos and identify queries with their answers and
 * labels, as zip pages of `images/` + `manifest.csv` + `manifest.jsonl` + `export.json`.
 * Paged by an opaque cursor (gallery photos first, then queries, each in creation order), so a
 * broken download resumes where it stopped; every page is streamed as it is zipped.
 */
export interface DatasciExportDeps {
  db: Queryable;
  exports: DatasciExportRepo;
  /** Names and farms of the individuals a query's label or top answer names. */
  individuals: Pick<IndividualsRepo, 'rowsOf'>;
  /** The photos' bytes, zipped as they are. */
  blobs: Pick<BlobStore, 'get'>;
  logger: Pick<Logger, 'warn'>;
}

export function createDatasciExportService(deps: DatasciExportDeps) {
  const { db, exports: datasciExportRepo, individuals: individualsRepo } = deps;
  async function galleryPage(scope: ExportScope, cur: ExportCursor, limit: number): Promise<KeyedRow[]> {
    const rows = await datasciExportRepo.galleryAfter(db, scope, cur.at, cur.id, limit);
    return rows.map(
      (x) =>
        ({
          identity: x.individual_id,
          path: imagePath(x.cid, x.content_type),
          split: 'gallery',
          owner_id: x.owner_id,
          individual_id: x.individual_id,
          kind: x.kind,
          species: x.species ?? '',
          farm_id: x.farm_id ?? '',
          name: x.name ?? '',
          photo_cid: x.cid,
          captured_at: new Date(x.at).toISOString(),
          image_id: x.image_id,
          query_id: '',
          answer_verdict: '',
          answer_top1: '',
          label: '',
          label_individual_id: '',
          candidates: [],
          model: x.model ? `${x.model}@${x.model_version}` : '',
          model_versions: x.models ?? [],
          _key: { at: x.at, id: x.image_id },
        }) as KeyedRow,
    );
  }

  async function queryPage(scope: ExportScope, cur: ExportCursor, limit: number): Promise<KeyedRow[]> {
    const queries = await datasciExportRepo.queriesAfter(db, scope, cur.at, cur.id, limit);
    const cids = [...new Set(queries.flatMap((q) => q.image_cids))];
    const types = await datasciExportRepo.contentTypes(db, cids);
    const typeOf = new Map(types.map((t) => [t.cid, t.content_type]));
    const ids = [
      ...new Set(queries.flatMap((q) => [q.correct_id, q.result?.candidates?.[0]?.individual_id].filter((x): x is string => !!x))),
    ];
    const inds = await individualsRepo.rowsOf(db, ids);
    const indOf = new Map(inds.map((x) => [x.id, x]));
    return queries.flatMap((q) => {
      const cands: ExportCandidate[] = (q.result?.candidates ?? []).map((x) => ({
        individual_id: x.individual_id,
        probability: x.probability,
      }));
      const top1 = cands[0]?.individual_id ?? null;
      const identity = labelIdentity(q.label, q.correct_id, top1);
      // Names and farms only of the query owner's own individuals (a granted pool's stay theirs).
      const ind = identity ? indOf.get(identity) : undefined;
      const own = ind && ind.owner_id === q.owner_id ? ind : undefined;
      return q.image_cids.map((cid) => ({
        identity,
        path: imagePath(cid, typeOf.get(cid) ?? null),
        split: 'query' as const,
        owner_id: q.owner_id,
        individual_id: identity,
        kind: q.kind,
        species: own?.species ?? '',
        farm_id: own?.farm_id ?? '',
        name: own?.name ?? '',
        photo_cid: cid,
        captured_at: new Date(q.at).toISOString(),
        image_id: '',
        query_id: q.id,
        answer_verdict: q.result?.verdict ?? '',
        answer_top1: top1 ?? '',
        label: q.label ?? '',
        label_individual_id: q.correct_id ?? '',
        candidates: cands,
        model: q.result?.model ? `${q.result.model.name}@${q.result.model.version}` : '',
        model_versions: modelsOfEngine(q.result?.model),
        _key: { at: q.at, id: q.id },
      }));
    });
  }

  /** Items (gallery photos + queries) in scope, and those strictly before the cursor. */
  async function progress(scope: ExportScope, cur: ExportCursor): Promise<{ total: number; before: number }> {
    const count = (table: 'images' | 'identify_queries', all: boolean) =>
      datasciExportRepo.count(db, table, scope, all ? null : { at: cur.at, id: cur.id });
    const [gi, qi] = [await count('images', true), await count('identify_queries', true)];
    const before = cur.part === 'gallery' ? await count('images', false) : gi + (await count('identify_queries', false));
    return { total: gi + qi, before };
  }

  /** The rows of one page (at most `limit` photos or queries) and the cursor after it. */
  async function page(scope: ExportScope, cursor: string | undefined, limit: number) {
    const cur = cursor ? decodeCursor(cursor) : START;
    if (!cur) throw new AppError(400, 'cursor_invalid', { field: 'cursor' });
    let rows: KeyedRow[] = cur.part === 'gallery' ? await galleryPage(scope, cur, limit) : [];
    let part = cur.part;
    if (cur.part === 'query' || rows.length < limit) {
      part = 'query';
      const qStart = cur.part === 'query' ? cur : { ...START, part: 'query' as const };
      rows = rows.concat(await queryPage(scope, qStart, limit - new Set(rows.map((r) => r._key.id)).size));
    }
    const last = rows.at(-1);
    const items = new Set(rows.map((r) => `${r.split}:${r._key.id}`)).size;
    const next = items >= limit && last ? encodeCursor({ part: last.split, at: last._key.at, id: last._key.id }) : null;
    return { rows, next, cur, part };
  }

  return {
    /** One zip page of the export. @throws 422 on a cursor we did not give out. */
    async exportPage(scope: ExportScope, opts: { cursor?: string; limit: number }): Promise<ExportPage> {
      const { rows, next, cur } = await page(scope, opts.cursor, opts.limit);
      const { total, before } = await progress(scope, cur);
      const clean = rows.map(({ _key, ...r }) => r as ExportRow);
      return { rows: clean, total, before, next, stream: zipStream(deps, clean, { total, before, next, scope }) };
    },
  };
}

/** Streams the page as a zip: photos stored as they are (already compressed), manifests deflated. */
function zipStream(
  c: Pick<DatasciExportDeps, 'blobs' | 'logger'>,
  rows: ExportRow[],
  meta: { total: number; before: number; next: string | null; scope: ExportScope },
): Readable {
  const out = new PassThrough();
  // A client that hangs up mid-download destroys the stream; never let that crash the process.
  out.on('error', (err) => c.logger.warn({ err }, 'export stream ended early'));
  const zip = new Zip((err, chunk, final) => {
    if (err) return void out.destroy(err);
    if (!out.destroyed) out.write(chunk);
    if (final) out.end();
  });
  const addText = (name: string, text: string) => {
    const f = new ZipDeflate(name, { level: 6 });
    zip.add(f);
    f.push(new TextEncoder().encode(text), true);
  };
  void (async () => {
    const kept: ExportRow[] = [];
    const written = new Set<string>();
    for (const r of rows) {
      if (out.destroyed) return;
      if (!written.has(r.path)) {
        const bytes = await c.blobs.get(r.photo_cid);
        if (!bytes) continue; // a photo whose bytes are gone cannot be exported; its row is left out too
        const f = new ZipPassThrough(r.path);
        zip.add(f);
        f.push(bytes, true);
        written.add(r.path);
        if (out.writableNeedDrain) await once(out, 'drain');
      }
      kept.push(r);
    }
    addText('manifest.csv', csvHeader() + kept.map(csvLine).join(''));
    addText('manifest.jsonl', kept.map((r) => JSON.stringify(r) + '\n').join(''));
    addText(
      'export.json',
      JSON.stringify(
        {
          format: 'markless-labels-1',
          rows: kept.length,
          items_total: meta.total,
          items_before: meta.before,
          next_cursor: meta.next,
          owner: meta.scope.ownerId ?? 'all',
          created_at: new Date().toISOString(),
        },
        null,
        2,
      ) + '\n',
    );
    zip.end();
  })().catch((err) => out.destroy(err as Error));
  return out;
}

export type DatasciExportService = ReturnType<typeof createDatasciExportService>;
