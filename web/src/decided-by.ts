import { h } from './dom.js';
import { currentLang, t } from './i18n.js';

/**
 * Under an identify answer, one sentence saying which calibration decided it and how often it may
 * be wrong: a person told "not sure" should learn why, and that their own confirmed answers are
 * what will change it. Its texts are i18n-calibration.ts's.
 */

/** The answer's `calibration` block, as far as this sentence reads it. */
export interface AnswerCalibration {
  source: 'owner' | 'pooled' | 'kind_default';
  samples?: number | null;
  false_match_bound?: number | null;
}

/** The sentence for `cal`, in the app's language. */
export function decidedBySentence(cal: AnswerCalibration): string {
  const bound = cal.false_match_bound;
  const first =
    cal.source === 'owner'
      ? t('decided_owner', { n: cal.samples ?? 0 })
      : cal.source === 'pooled'
        ? t('decided_pooled')
        : t(bound == null ? 'decided_defaults' : 'decided_shipped');
  const limit = bound == null ? '' : t('decided_bound', { p: (Math.ceil(bound * 1000) / 10).toLocaleString(currentLang()) });
  return first + limit + (cal.source === 'owner' ? '' : t('decided_grow'));
}

/** The paragraph under a verdict, or nothing when the answer carries no calibration. */
export function decidedBy(cal: AnswerCalibration | undefined): HTMLElement | null {
  return cal ? h('p', { class: 'decided-by hint', 'data-source': cal.source }, decidedBySentence(cal)) : null;
}
