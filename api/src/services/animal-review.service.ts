import { randomUUID } from 'node:crypto';
import type { Container } from '../../../shared/src/container.js';
import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import { animalDid } from '../../../shared/src/domain/animal-did.js';
import { appendChainEvent, loadChain } from '../../../shared/src/evidence/store/chain-store.js';
import type { Caller } from '../http/route.js';
import { animalIdOr404 } from './animals.service.js';
import type { IndividualsService } from './individuals.service.js';
import type { JobOutcome } from './jobs.service.js';
import type { createVerdictService } from './verdict.service.js';

/**
 * Review decisions on an animal identify answer (issue 24), each one request: "this one" (label
 * and keep the photo with the animal), "none of these" (the query's photos go into a new
 * enrolment), and merging two individuals that turned out to be one, recorded in both chains.
 */
export function createAnimalReviewService(
  c: Container,
  deps: { individuals: IndividualsService; verdicts: ReturnType<typeof createVerdictService> },
) {
  const { db } = c;

  /** The caller's own animal query: its stored photos and the verdict's top candidate. */
  async function query(caller: Caller, queryId: string) {
    const r = await db.query<{ image_cids: string[]; result: { verdict?: string; candidates?: { individual_id: string }[] } }>(
      `select image_cids, result from identify_queries where id = $1 and owner_id = $2 and kind = 'animal'`,
      [queryId, caller.account_id],
    );
    if (!r.rows[0]) throw ERRORS.notFound();
    return r.rows[0];
  }

  return {
    query,

    /**
     * "This one": the label (correct when it was the top candidate, other otherwise) and the query
     * photo added to the animal; its chain records the confirmed identification.
     */
    async confirm(caller: Caller, queryId: string, ref: string): Promise<{ outcome: JobOutcome; id: string; verdict: string }> {
      const q = await query(caller, queryId);
      const id = animalIdOr404(ref);
      await deps.individuals.owned(caller, id, 'animal');
      const verdict = q.result.candidates?.[0]?.individual_id === id ? 'correct' : 'other';
      await deps.verdicts.record(caller, { query_id: queryId, verdict, correct_id: id, kind: 'animal' });
      return { outcome: await deps.individuals.addQueryPhotos(caller, 'animal', id, q.image_cids, queryId), id, verdict };
    },

    /** After a new animal was enrolled from a query's photos: the query is labelled with it. */
    async labelNew(caller: Caller, queryId: string, verdict: string | undefined, newId: string) {
      await deps.verdicts.record(caller, {
        query_id: queryId,
        verdict: verdict === 'no_match' ? 'unknown_ok' : 'other',
        correct_id: newId,
        kind: 'animal',
      });
    },

    /**
     * Merge `from` into `into` (both the caller's): `from`'s photos and descriptors become
     * `into`'s under new image ids (so every owner index notices and rebuilds), `from` leaves lists
     * and matching like a deleted animal, and both chains record the merge; `into`'s event carries
     * `from`'s chain head and a summary of its events, so one history holds both.
     */
    async merge(caller: Caller, intoRef: string, fromRef: string) {
      const into = animalIdOr404(intoRef);
      const from = animalIdOr404(fromRef);
      if (into === from) throw new AppError(422, 'merge_same', { field: 'from' });
      await deps.individuals.owned(caller, into, 'animal');
      await deps.individuals.owned(caller, from, 'animal');
      return db.transaction(async (tx) => {
        const history = await loadChain(tx, 'animal', from);
        const imgs = await tx.query<{ id: string; cid: string }>(
          'select id, cid from images where individual_id = $1 order by created_at, id',
          [from],
        );
        let moved = 0;
        for (const img of imgs.rows) {
          const fresh = randomUUID();
          const ins = await tx.query<{ id: string }>(
            `insert into images (id, individual_id, owner_id, cid, source, in_record, width, height)
             select $1, $2, owner_id, cid, 'merge', false, width, height from images where id = $3
             on conflict (individual_id, cid) do nothing returning id`,
            [fresh, into, img.id],
          );
          if (ins.rows[0]) {
            await tx.query(
              `insert into descriptors (image_id, owner_id, model, model_version, global, local, quality, models, subject)
               select $1, owner_id, model, model_version, global, local, quality, models, subject from descriptors where image_id = $2`,
              [fresh, img.id],
            );
            moved++;
          }
          await tx.query('delete from images where id = $1', [img.id]);
        }
        await tx.query(`update individuals set deleted_at = now(), attrs = attrs || $2::jsonb where id = $1`, [
          from,
          JSON.stringify({ merged_into: into }),
        ]);
        const head = history.at(-1);
        const summary = history.map((e) => ({
          seq: e.seq,
          type: (e.body as { type?: unknown }).type ?? null,
          created_at: e.created_at,
          leaf_hash: e.leaf_hash,
        }));
        const a = await appendChainEvent(tx, {
          entity_type: 'animal',
          entity_id: into,
          owner_id: caller.account_id,
          author_id: caller.account_id,
          author_role: 'owner',
          body: {
            type: 'merged',
            animal_did: animalDid(into),
            from: animalDid(from),
            photos_moved: moved,
            from_chain_head: head?.leaf_hash ?? null,
            from_events: summary,
          },
        });
        const b = await appendChainEvent(tx, {
          entity_type: 'animal',
          entity_id: from,
          owner_id: caller.account_id,
          author_id: caller.account_id,
          author_role: 'owner',
          body: { type: 'merged_into', animal_did: animalDid(from), into: animalDid(into), photos_moved: moved },
        });
        await tx.query(`insert into activity_events (owner_id, action, detail) values ($1, 'animal.merge', $2)`, [
          caller.account_id,
          { into: animalDid(into), from: animalDid(from), moved },
        ]);
        return {
          animal_did: animalDid(into),
          merged: animalDid(from),
          photos_moved: moved,
          event: { event_id: a.event_id, seq: a.seq, leaf_hash: a.leaf_hash },
          merged_event: { event_id: b.event_id, seq: b.seq, leaf_hash: b.leaf_hash },
        };
      });
    },
  };
}

export type AnimalReviewService = ReturnType<typeof createAnimalReviewService>;
