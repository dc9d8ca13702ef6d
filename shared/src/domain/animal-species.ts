/**
 * The species decision of `POST /api/animal/detect` and `/api/animal/scan` (spec section 4,
 * "detect rules"), as one pure function so the API (rules 1 and 2, which need no photo) and the
 * worker (rule 3, after running the detector) decide identically.
 *
 * ```ts
 * const d = decideSpecies({ farm: [{ id: 'cattle', detector_class: 'cow' }, { id: 'horse', detector_class: 'horse' }],
 *   groups: [['cattle', 'zebu', 'water_buffalo']], catalogue: ['cattle', 'horse', ...], detections });
 * // d.rule 'detector', d.need_confirm false, d.species 'cattle' when a cow was seen with score >= 0.5
 * ```
 */

/** One species of the farm, with the detector class that stands for it (null: the detector has none). */
export interface FarmSpecies {
  id: string;
  detector_class: string | null;
}

/** One object the detector saw, by class name (e.g. COCO `cow`), best score first or not. */
export interface LabelledDetection {
  label: string;
  score: number;
  box: { x: number; y: number; width: number; height: number };
}

export type DetectRule = 'new_farm' | 'single_species' | 'detector';

export interface SpeciesCandidateOut {
  species: string;
  /** Best detector score for this species' class in the photo; null when not measured (rules 1, 2) or no class. */
  score: number | null;
  /** Other species of the farm it is declared confusable with (catalogue `confusable_groups`). */
  confusable_with: string[];
}

export interface SpeciesDecision {
  rule: DetectRule;
  /** The species to proceed with, when no confirmation is needed. */
  species: string | null;
  need_confirm: boolean;
  /** Rule 1: every catalogue animal species; rule 2: the farm's one; rule 3: the narrowed list, best first. */
  candidates: SpeciesCandidateOut[];
  /** Why confirmation is needed (rule 3 only). */
  reason?: 'no_detection' | 'low_confidence' | 'confusable';
}

/** A detection at or above this score is "confident" (rule 3). */
export const DETECT_CONFIDENT = 0.5;
/** Below this score a detection is noise (reported as `no_detection`). */
export const DETECT_FLOOR = 0.15;

/**
 * The farm's other species that `id` can be confused with: a shared declared group, a shared
 * detector class, or either one having no detector class at all (the detector cannot rule out
 * what it cannot see, so such a species is confusable with every other).
 */
export function confusableWith(id: string, farm: readonly FarmSpecies[], groups: readonly (readonly string[])[]): string[] {
  const me = farm.find((f) => f.id === id);
  return farm
    .filter((f) => f.id !== id)
    .filter(
      (f) =>
        groups.some((g) => g.includes(id) && g.includes(f.id)) ||
        !me?.detector_class ||
        !f.detector_class ||
        me.detector_class === f.detector_class,
    )
    .map((f) => f.id);
}

/**
 * Spec rules, exactly:
 * 1. a farm with no individuals: every catalogue species is a candidate, and the person must choose;
 * 2. a farm with one species: that species at once, `need_confirm: false`, no photo needed;
 * 3. a farm with several: the detector's best class among the farm's species proceeds when its
 *    score is at least DETECT_CONFIDENT and it is not confusable with another of the farm's species;
 *    otherwise the person confirms: from the confident species and those it is confusable with, or,
 *    when nothing was seen confidently, from all the farm's species, best score first.
 */
export function decideSpecies(input: {
  farm: readonly FarmSpecies[];
  groups: readonly (readonly string[])[];
  catalogue: readonly string[];
  detections?: readonly LabelledDetection[];
}): SpeciesDecision {
  const { farm, groups } = input;
  if (farm.length === 0) {
    return {
      rule: 'new_farm',
      species: null,
      need_confirm: true,
      candidates: input.catalogue.map((s) => ({ species: s, score: null, confusable_with: [] })),
    };
  }
  if (farm.length === 1) {
    return {
      rule: 'single_species',
      species: farm[0]!.id,
      need_confirm: false,
      candidates: [{ species: farm[0]!.id, score: null, confusable_with: [] }],
    };
  }
  const best = new Map<string, number>();
  for (const d of input.detections ?? []) best.set(d.label, Math.max(best.get(d.label) ?? 0, d.score));
  const scored = farm
    .map((f) => ({
      species: f.id,
      score: f.detector_class ? (best.get(f.detector_class) ?? 0) : null,
      confusable_with: confusableWith(f.id, farm, groups),
    }))
    .sort((a, b) => (b.score ?? -1) - (a.score ?? -1) || a.species.localeCompare(b.species));
  const top = scored[0]!;
  const topScore = top.score ?? 0;
  if (topScore >= DETECT_CONFIDENT && top.confusable_with.length === 0) {
    return { rule: 'detector', species: top.species, need_confirm: false, candidates: [top] };
  }
  const reason = topScore < DETECT_FLOOR ? 'no_detection' : topScore < DETECT_CONFIDENT ? 'low_confidence' : 'confusable';
  // Narrowed only on a confident sighting (to it and what it cannot be told from); a weak or no
  // sighting rules nothing out, so the whole farm is offered, best score first.
  const candidates =
    reason === 'confusable' ? scored.filter((s) => s.species === top.species || top.confusable_with.includes(s.species)) : scored;
  return { rule: 'detector', species: null, need_confirm: true, candidates, reason };
}
