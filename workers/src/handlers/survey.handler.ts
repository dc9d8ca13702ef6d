import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { UnrecoverableJobError } from '../../../shared/src/domain/errors.js';
import type { JobData, JobHandler } from '../../../shared/src/domain/jobs.js';
import { animalDid } from '../../../shared/src/domain/animal-did.js';
import { storeBlob } from '../../../shared/src/repos/evidence/blob-registry.js';
import { appendChainEvent } from '../../../shared/src/repos/evidence/chain-store.js';
import { resolveEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import { createPopulationService } from '../../../shared/src/population/population.service.js';
import { populationRepo } from '../../../shared/src/repos/population.repo.js';
import { addBlobOwner } from '../../../shared/src/repos/evidence/blob-refs.js';
import { individualsRepo } from '../../../shared/src/repos/individuals.repo.js';
import { surveysRepo } from '../../../shared/src/repos/surveys.repo.js';
import { scopeOfJob } from '../../../shared/src/access/owner-scope.js';
import { ownedBy } from '../../../shared/src/access/owned.js';
import { DEFAULT_STALE_DAYS } from '../../../shared/src/population/population-rules.js';
import { ANIMAL_CLASS_IDS, loadDetector } from '../vision/detector.js';
import { settingsFor } from '../vision/settings.js';
import type { Descriptor } from '../vision/engine.js';
import { SurveyVideoError } from '../survey/frame-stream.js';
import { surveyVideo, type SurveyTrack } from '../survey/pipeline.js';
import { looksFor } from '../survey/views.js';
import { exclusiveMatches, summarise, type DecidedTrack, type Enrolled } from '../../../shared/src/domain/survey-summary.js';
import { identifyDescriptors, storeQuery, type IdentifyDeps } from './identify.handler.js';

type Data = JobData<'survey'>;

/** Describe a track's crops (each around its box) and identify them as one several-photo query. */
async function decideTrack(deps: IdentifyDeps, data: Data, t: SurveyTrack, cids: string[]): Promise<DecidedTrack> {
  const base = { track_no: t.id, frame_cids: cids, first_s: t.first_s, last_s: t.last_s, label: t.label };
  if (data.kind === 'fruit') return { ...base, verdict: 'counted', individual_id: null, name: null, candidates: [] };
  // In time order. Best-seen first (detector confidence × size) was measured on bench:survey's holstein
  // clips and did not name more tracks: its largest boxes were often two crossing cows (docs/surveys.md).
  const queries: Descriptor[] = [];
  const asked: string[] = [];
  for (const [i, c] of t.crops.entries()) {
    const d = await deps.engine
      .describe(c.jpeg, { kind: 'animal', enforceQuality: false, subject: { box: c.box } })
      .catch((e: { unrecoverable?: boolean }) => {
        if (e?.unrecoverable) return null;
        throw e;
      });
    if (d) {
      queries.push(d);
      asked.push(cids[i]!);
    }
  }
  if (!queries.length) return { ...base, verdict: 'no_match', individual_id: null, name: null, candidates: [] };
  const filters = { ...(data.farm_id ? { farm_id: data.farm_id } : {}), ...(data.species ? { species: data.species } : {}) };
  const full = await identifyDescriptors(deps, { owner_id: data.owner_id, kind: 'animal', filters }, queries);
  // Stored like any identify query: labels can correct it, and a match counts as "seen" for alerts.
  const queryId = randomUUID();
  await storeQuery(
    deps.c,
    { id: queryId, owner: scopeOfJob(data), kind: 'animal', cids: asked },
    { query_id: queryId, survey_id: data.survey_id, ...full },
  );
  const cands = full.candidates.map((x) => ({ individual_id: x.individual_id, name: x.name, probability: x.probability }));
  return {
    ...base,
    query_id: queryId,
    verdict: full.verdict,
    individual_id: full.match?.individual_id ?? null,
    name: full.match?.name ?? null,
    candidates: cands,
  } as DecidedTrack;
}

async function enrolled(deps: IdentifyDeps, data: Data): Promise<Enrolled[]> {
  if (data.kind !== 'animal' || !data.farm_id) return [];
  const rows = await individualsRepo.animalsOfFarm(deps.c.db, scopeOfJob(data), data.farm_id);
  const key = data.species?.normalize('NFC').trim().toLowerCase();
  return rows.filter((x) => !key || x.species?.normalize('NFC').trim().toLowerCase() === key).map((x) => ({ id: x.id, name: x.name }));
}

/** The farm's and every identified animal's timeline get one event each. */
async function recordEvents(deps: IdentifyDeps, data: Data, summary: ReturnType<typeof summarise>) {
  const body = { type: 'survey', survey_id: data.survey_id, kind: data.kind, count: summary.count, video_cid: data.video_cid };
  const targets: { type: 'farm' | 'animal'; id: string }[] = [];
  if (data.farm_id) targets.push({ type: 'farm', id: data.farm_id });
  for (const k of summary.known) targets.push({ type: 'animal', id: k.individual_id });
  const scope = scopeOfJob(data);
  for (const t of targets) {
    const entity = ownedBy(await resolveEntity(deps.c.db, t.type, t.id, { owner: scope }), scope);
    if (!entity) continue;
    const extra = t.type === 'animal' ? { animal_did: animalDid(t.id) } : {};
    await deps.c.db.transaction((tx) =>
      appendChainEvent(tx, {
        entity_type: t.type,
        entity_id: entity.entity_id,
        owner_id: data.owner_id,
        author_id: data.owner_id,
        author_role: 'owner',
        body: { ...body, ...extra },
      }),
    );
  }
}

/**
 * Survey a video: stream, detect, track, identify each track, count, then write the population
 * count (so its alerts fire) and the timeline events. A video that cannot be read whole fails the
 * survey with its reason and writes nothing else.
 */
export function surveyHandler(deps: IdentifyDeps): JobHandler<'survey'> {
  const { c } = deps;
  return async (data) => {
    const row = await surveysRepo.ownResult(c.db, data.survey_id, scopeOfJob(data));
    if (!row) return { survey_id: data.survey_id, skipped: 'deleted' };
    if (row.status === 'done') return row.result ?? {};
    await surveysRepo.start(c.db, data.survey_id);
    const bytes = await c.blobs.get(data.video_cid);
    if (!bytes) throw new Error(`blob ${data.video_cid} missing from the store`);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'markless-survey-'));
    let pass;
    try {
      const file = path.join(dir, 'video');
      await writeFile(file, bytes);
      pass = await surveyVideo(
        file,
        { kind: data.kind, fps: data.fps, maxSeconds: c.config.VIDEO_MAX_SECONDS, views: looksFor(c.config.SURVEY_DETECT_LOOKS) },
        {
          // On the engine pool when there is one: a frame per thread (all its looks), ahead of the
          // tracker, and the camera motion there too; this thread only tracks.
          ...(deps.detect
            ? {
                detector: { detect: deps.detect.run, ...(deps.detect.looks ? { detectLooks: deps.detect.looks } : {}) },
                ...(deps.detect.motion ? { motion: deps.detect.motion } : {}),
                ahead: deps.detect.threads,
              }
            : { detector: await loadDetector() }),
          onProgress: async (p) => void (await surveysRepo.readProgress(c.db, data.survey_id, p)),
        },
      );
    } catch (err) {
      if (err instanceof SurveyVideoError) {
        await surveysRepo.fail(c.db, data.survey_id, { code: err.code, params: err.params });
        throw new UnrecoverableJobError(err.message, 422, err.code, { field: 'file', ...err.params });
      }
      throw err;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const decided: (DecidedTrack & { query_id?: string; enrol_cids: string[] })[] = [];
    const detector = await loadDetector();
    const minSubject = settingsFor('animal').subjectMinScore;
    // Every frame is read; the page now counts the tracks identified (a few seconds each on two cores).
    await surveysRepo.startIdentifying(c.db, data.survey_id, pass.frames, pass.tracks.length);
    for (const t of pass.tracks) {
      const cids = [];
      const enrolCids = [];
      for (const cr of t.crops) {
        const { cid } = await storeBlob(c, cr.jpeg, 'image/jpeg');
        // Enrolment refuses a photo its detector finds no animal in: "enrol as new" sends only crops that pass.
        if (
          data.kind === 'animal' &&
          (await detector.detect(new Uint8Array(cr.jpeg), { classes: ANIMAL_CLASS_IDS, minScore: minSubject })).length
        )
          enrolCids.push(cid);
        // The owner reads the track's thumbnails back by CID (GET /api/blobs/{cid}) and nobody else.
        await addBlobOwner(c.db, cid, data.owner_id);
        cids.push(cid);
      }
      decided.push({ ...(await decideTrack(deps, data, t, cids)), enrol_cids: enrolCids });
      await surveysRepo.setIdentified(c.db, data.survey_id, decided.length);
    }
    decided.splice(0, decided.length, ...exclusiveMatches(decided));
    const heads = await enrolled(deps, data);
    const summary = summarise(data.kind, decided, heads, data.tree_id ?? null);
    let population: Record<string, unknown> | null = null;
    if (data.kind === 'animal' && data.farm_id) {
      const out = await createPopulationService({ db: c.db, population: populationRepo }).count(
        scopeOfJob(data),
        {
          farm_id: data.farm_id,
          zone: data.zone,
          count: summary.count,
          method: 'survey',
          note: `survey ${data.survey_id}`,
          stale_after_days: DEFAULT_STALE_DAYS,
        },
        [{ cid: data.video_cid, filename: 'survey', contentType: 'video/mp4', size: bytes.length, created: false }],
        'en',
      );
      population = {
        count_id: out.count_id,
        enrolled: out.enrolled,
        alerts: out.alerts.map((a) => ({ alert_id: a.alert_id, rule: a.rule })),
      };
    }
    const result = {
      survey_id: data.survey_id,
      kind: data.kind,
      species: data.species ?? null,
      farm_id: data.farm_id ?? null,
      tree_id: data.tree_id ?? null,
      frames_read: pass.frames,
      seconds: Math.round(pass.seconds * 100) / 100,
      frames_per_second: Math.round((pass.frames / Math.max(1, pass.ms)) * 1e5) / 100,
      ...summary,
      population,
      tracks: decided.map((t) => ({
        track: t.track_no,
        verdict: t.verdict,
        individual_id: t.individual_id,
        name: t.name,
        candidates: t.candidates,
        frames: t.frame_cids,
        first_s: t.first_s,
        last_s: t.last_s,
        label: t.label,
      })),
    };
    await c.db.transaction(async (tx) => {
      for (const [i, t] of decided.entries()) {
        await surveysRepo.insertTrack(tx, {
          survey_id: data.survey_id,
          track_no: t.track_no,
          query_id: t.query_id ?? null,
          verdict: t.verdict,
          individual_id: t.individual_id,
          candidates: t.candidates,
          frame_cids: t.frame_cids,
          enrol_cids: t.enrol_cids,
          first_s: t.first_s,
          last_s: t.last_s,
          boxes: pass.tracks[i]!.boxes.filter((_, k) => k % 5 === 0),
        });
      }
      await surveysRepo.finish(tx, data.survey_id, {
        frames: pass.frames,
        tracks: decided.length,
        result,
        count_id: (population?.count_id as string | undefined) ?? null,
      });
    });
    await recordEvents(deps, data, summary);
    return result;
  };
}
