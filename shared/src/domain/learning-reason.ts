/**
 * Why a learning run decided what it did, and why the owner's calibration is not serving, as
 * whole sentences in Vietnamese and English (issue 24, item 7). A run records a catalogue code
 * and its figures (`decision.message`, or `decision.report.message` where the training report
 * carries it) beside its English `reason`; GET /api/learning/{kind} renders both languages and
 * the app shows the one chosen. Runs stored before the code existed have no message and keep
 * their English `reason`.
 *
 * @example
 *   const m = learningMessage('learn_rolled_back_base', { version: 3 });
 *   renderLearning(m, 'vi'); // 'Đã gỡ phiên bản 3; chỉ còn mô hình gốc được dùng.'
 */
import type { learningMessages } from './messages/learning.js';
import { renderMessage, type Lang } from './messages.js';

export type LearningCode = keyof typeof learningMessages;

/** A sentence of the catalogue and the figures that fill it (percentages already × 100). */
export interface LearningMessage {
  code: LearningCode;
  params: Record<string, string | number>;
}

/** The same sentence in both languages, as the API returns it. */
export interface BilingualReason extends LearningMessage {
  vi: string;
  en: string;
}

export const learningMessage = (code: LearningCode, params: Record<string, string | number> = {}): LearningMessage => ({ code, params });

/** A share as the catalogue's percentages take it: 0.9434 → 94.3. */
export const percent = (v: number): number => Math.round(v * 1000) / 10;

/** The sentence in one language; Vietnamese writes decimals with a comma. */
export function renderLearning(m: LearningMessage, lang: Lang): string {
  const params =
    lang === 'vi'
      ? Object.fromEntries(
          Object.entries(m.params).map(([k, v]) => [k, typeof v === 'number' && !Number.isInteger(v) ? String(v).replace('.', ',') : v]),
        )
      : m.params;
  return renderMessage(m.code, lang, params);
}

export const bilingual = (m: LearningMessage): BilingualReason => ({ ...m, vi: renderLearning(m, 'vi'), en: renderLearning(m, 'en') });

const isMessage = (x: unknown): x is LearningMessage =>
  typeof x === 'object' &&
  x !== null &&
  typeof (x as LearningMessage).code === 'string' &&
  (x as LearningMessage).code.startsWith('learn_') &&
  typeof (x as LearningMessage).params === 'object';

/**
 * A run's reason in both languages: the message it recorded; for a failed run that recorded none
 * (a training that threw), the failure itself; null for older runs, which keep their English text.
 */
export function runReason(status: string, decision: Record<string, unknown> | null): BilingualReason | null {
  const report = decision?.report as Record<string, unknown> | undefined;
  const m = [decision?.message, report?.message].find(isMessage);
  if (m) return bilingual(m);
  return status === 'failed' ? bilingual(learningMessage('learn_failed')) : null;
}

const figure = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * Why the owner's calibration does not serve, in both languages, read from the figures the fit
 * stored (`owner_calibrations.report`) in the order the fit refuses
 * (workers/src/vision/fused-fit.ts fitFusedCalibration): too few queries, too few individuals, too
 * few right or wrong answers, too few independent queries. `stale`: fitted under the older rule
 * (calibration-fit.ts). Null when it serves, or when the figures do not say (the stored English
 * `reason` is shown then).
 */
export function calibrationReason(report: Record<string, unknown>, serves: boolean, stale: boolean): BilingualReason | null {
  if (serves) return null;
  if (stale) return bilingual(learningMessage('cal_stale'));
  const [n, right, individuals, effective, needed] = ['n', 'right', 'individuals', 'effective_n', 'minimum_sample'].map((k) =>
    figure(report[k]),
  );
  if (!report.reason || n === undefined || needed === undefined) return null;
  if (n < needed) return bilingual(learningMessage('cal_too_few_queries', { n, needed }));
  if (individuals !== undefined && individuals < 5) return bilingual(learningMessage('cal_too_few_individuals', { individuals }));
  if (right !== undefined && (right < 10 || n - right < 10))
    return bilingual(learningMessage('cal_too_few_answers', { right, wrong: n - right }));
  if (effective !== undefined && effective < needed) return bilingual(learningMessage('cal_too_few_effective', { effective, needed }));
  return null;
}
