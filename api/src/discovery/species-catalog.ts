import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Lang } from '../../../shared/src/domain/messages.js';

/** One species the service knows how to enrol: a fruit crop, another tree crop, or a farm animal. */
export const Species = z.object({
  id: z.string().regex(/^[a-z0-9_]+$/),
  kind: z.enum(['tree', 'fruit', 'animal']),
  scientific_name: z.string().min(3),
  name_vi: z.string().min(1),
  name_en: z.string().min(1),
  detector_class: z
    .string()
    .nullable()
    .optional()
    .describe('animals: the object-detector (COCO) class that stands for this species; null when the detector has none'),
});

/** Species the animal detector cannot tell apart (spec: "not in a confusable group"). */
export const ConfusableGroup = z.object({
  id: z.string().regex(/^[a-z0-9_]+$/),
  species: z.array(z.string()).min(2),
  why_en: z.string().optional(),
  why_vi: z.string().optional(),
});

/** One care activity a timeline event can record (fertilising, vaccination...). */
export const Activity = z.object({
  id: z.string().regex(/^[a-z0-9_]+$/),
  name_vi: z.string().min(1),
  name_en: z.string().min(1),
  kinds: z
    .array(z.enum(['tree', 'fruit', 'animal']))
    .optional()
    .describe('entity kinds the activity applies to'),
});

const CatalogFile = z.object({
  species: z.array(Species),
  activities: z.array(Activity),
  confusable_groups: z.array(ConfusableGroup).default([]),
});

/** What `/api/species/catalog` answers; `error` is present only when the catalogue could not be read. */
export const CatalogOut = z.object({
  ok: z.literal(true),
  species: z.array(Species),
  activities: z.array(Activity),
  confusable_groups: z
    .array(ConfusableGroup)
    .optional()
    .describe('animal species the detector cannot tell apart; /api/animal/detect asks to confirm among them'),
  error: z.string().optional().describe('a sentence saying the catalogue file could not be read; the lists are then empty'),
});

export type CatalogBody = z.infer<typeof CatalogOut>;

const UNREADABLE: Record<Lang, string> = {
  vi: 'Không đọc được tệp danh mục loài, nên danh sách loài và hoạt động tạm thời để trống.',
  en: 'The species catalogue file could not be read, so the species and activity lists are empty for now.',
};

/** How long a failed read is remembered, so a burst of requests does not hit the disk each time. */
const RETRY_AFTER_FAILURE_MS = 30_000;

/**
 * Reads the catalogue file once and keeps it. A missing or broken file is not fatal (spec 7: the
 * route answers empty lists with `error`), and it is retried later, so an operator who adds the
 * file does not have to restart the service.
 */
export class SpeciesCatalog {
  private loaded: z.infer<typeof CatalogFile> | null = null;
  private failedAt = -Infinity;
  private pending: Promise<void> | null = null;

  constructor(
    private readonly filePath: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The route body: the catalogue, or empty lists with a sentence in the caller's language. */
  async body(lang: Lang): Promise<CatalogBody> {
    if (!this.loaded && this.now() - this.failedAt >= RETRY_AFTER_FAILURE_MS) {
      this.pending ??= this.load().finally(() => (this.pending = null));
      await this.pending;
    }
    if (this.loaded) return { ok: true, ...this.loaded };
    return { ok: true, species: [], activities: [], error: UNREADABLE[lang] };
  }

  private async load(): Promise<void> {
    try {
      const parsed = CatalogFile.parse(JSON.parse(await readFile(this.filePath, 'utf8')));
      this.loaded = { species: parsed.species, activities: parsed.activities, confusable_groups: parsed.confusable_groups };
    } catch {
      this.failedAt = this.now();
    }
  }
}
