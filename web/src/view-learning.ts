import { call, errorText } from './api.js';
import { h, mount, notice } from './dom.js';
import { currentLang, t, type TextKey } from './i18n.js';
import { when } from './timeline.js';

const KINDS = ['tree', 'fruit', 'animal'] as const;

/** A server sentence in both languages (GET learning `reason_message`). */
interface Said {
  vi: string;
  en: string;
}

interface Learning {
  learn_after_new: number;
  pending: { new_photos: number; new_labels: number };
  adopted: { version: number; recipe: string } | null;
  runs: { status: string; reason: string | null; reason_message?: Said | null; created_at: string; finished_at: string | null }[];
  calibration: { fitted: boolean; report: { n?: number; reason?: string | null }; reason_message?: Said | null } | null;
}

/** Why, in the chosen language; a run stored before runs said it in both keeps its English. */
const why = (said: Said | null | undefined, english: string | null | undefined): HTMLElement | null => {
  const text = said ? said[currentLang()] : english;
  return text ? h('small', { class: 'reason' }, text) : null;
};

/** A learned version's recipe in words; a recipe this app does not know yet is shown as named. */
const recipeWords = (recipe: string): string =>
  recipe.startsWith('finetuned-') ? t('recipe_finetuned') : recipe.startsWith('proxy-softmax-linear') ? t('recipe_linear') : recipe;

/** One kind's loop: what serves, what is pending, the last run and why, and what the verdicts rest on. */
function kindBlock(kind: (typeof KINDS)[number], l: Learning): HTMLElement {
  const last = l.runs[0];
  const cal = l.calibration;
  return h(
    'div',
    { class: 'learning-kind', 'data-kind': kind },
    h('h3', {}, t(`kind_${kind}`)),
    h(
      'p',
      { 'data-field': 'serving' },
      l.adopted ? t('learn_serving_version', { v: l.adopted.version, recipe: recipeWords(l.adopted.recipe) }) : t('learn_serving_base'),
    ),
    h(
      'p',
      { 'data-field': 'pending' },
      l.learn_after_new > 0
        ? t('learn_pending', { photos: l.pending.new_photos, labels: l.pending.new_labels, n: l.learn_after_new })
        : t('learn_off'),
    ),
    last
      ? h(
          'p',
          { 'data-field': 'last-run' },
          t('learn_last_run', { when: when(last.finished_at ?? last.created_at), status: t(`run_${last.status}` as TextKey) }),
          why(last.reason_message, last.reason),
        )
      : h('p', { 'data-field': 'last-run' }, t('learn_never')),
    h(
      'p',
      { 'data-field': 'calibration' },
      cal?.fitted ? t('learn_cal_owner', { n: cal.report.n ?? 0 }) : t('learn_cal_default'),
      cal && !cal.fitted ? why(cal.reason_message, cal.report.reason) : null,
    ),
  );
}

/**
 * The learning loop as the owner sees it (issue 23), beside their trees, fruit and animals: the
 * same figures as GET /api/learning/{kind}; rolling back stays an operator's command.
 */
export function learningCard(): HTMLElement {
  const box = h('div', {}, notice('info', t('working')));
  void (async () => {
    const answers = await Promise.all(KINDS.map((k) => call<Learning>('GET', `/api/learning/${k}`)));
    const failed = answers.find((a) => !a.ok);
    if (failed) return mount(box, notice('error', errorText(failed)));
    mount(
      box,
      KINDS.map((k, i) => kindBlock(k, answers[i]!.json)),
    );
  })();
  return h('section', { class: 'card learning' }, h('h2', {}, t('learn_title')), h('p', { class: 'hint' }, t('learn_help')), box);
}
