import { h } from './dom.js';
import { t, type TextKey } from './i18n.js';

export type Kind = 'tree' | 'fruit' | 'animal';

/** Each kind's routes (spec section 4). */
export const ROUTES: Record<Kind, { enrol: string; identify: string; verdict: string; correctField: string }> = {
  tree: { enrol: '/api/enroll', identify: '/api/identify', verdict: '/api/identify_verdict', correctField: 'correct_id' },
  fruit: {
    enrol: '/api/fruit/enroll',
    identify: '/api/fruit/identify',
    verdict: '/api/fruit/identify_verdict',
    correctField: 'correct_id',
  },
  animal: {
    enrol: '/api/animal/enroll',
    identify: '/api/animal/identify',
    verdict: '/api/animal/identify_verdict',
    correctField: 'correct_did',
  },
};

/** The page of one individual inside the app. */
export function entityHash(kind: Kind, r: { individual_id?: string; tree_id?: string; animal_did?: string }): string {
  if (kind === 'animal') return `#/animal/${encodeURIComponent(r.animal_did ?? '')}`;
  if (kind === 'fruit') return `#/fruit/${encodeURIComponent(r.individual_id ?? '')}`;
  return `#/tree/${encodeURIComponent(r.tree_id ?? r.individual_id ?? '')}`;
}

/** A segmented choice of kind; `onchange` gets the new kind. */
export function kindChooser(initial: Kind, onchange: (k: Kind) => void): HTMLElement {
  const name = `kind-${Math.random().toString(36).slice(2, 8)}`;
  return h(
    'fieldset',
    { class: 'segmented' },
    h('legend', {}, t('kind')),
    (['tree', 'fruit', 'animal'] as Kind[]).map((k) =>
      h(
        'label',
        {},
        h('input', { type: 'radio', name, value: k, checked: k === initial, onchange: () => onchange(k) }),
        h('span', {}, t(`kind_${k}` as TextKey)),
      ),
    ),
  );
}
