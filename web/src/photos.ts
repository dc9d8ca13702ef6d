import { h, mount } from './dom.js';
import { t } from './i18n.js';

export interface PhotoPicker {
  el: HTMLElement;
  files(): File[];
  clear(): void;
  /** Mark photos on their thumbnails (refusal reasons); an empty map clears the marks. */
  mark(marks: Map<number, { text: string; warning: boolean }>): void;
  /** Add photos (a photo kept from an identify query). */
  add(files: File[]): void;
}

/**
 * Take photos with the phone's camera or choose them from the gallery; each shows as a
 * thumbnail and can be removed. The files stay here until the caller clears them, so a
 * refused or rate-limited request never loses them.
 */
export function photoPicker(opts: { multiple?: boolean; name?: string; onChange?: (count: number) => void } = {}): PhotoPicker {
  let files: File[] = [];
  let marks = new Map<number, { text: string; warning: boolean }>();
  const thumbs = h('div', { class: 'thumbs' });
  const input = h('input', {
    type: 'file',
    accept: 'image/*',
    capture: 'environment',
    multiple: opts.multiple !== false,
    name: opts.name ?? 'photos',
    class: 'visually-hidden',
    onchange: () => {
      const picked = Array.from(input.files ?? []);
      files = opts.multiple === false ? picked.slice(0, 1) : [...files, ...picked];
      input.value = '';
      marks = new Map();
      render();
    },
  });
  function render() {
    opts.onChange?.(files.length);
    mount(
      thumbs,
      files.map((f, i) => {
        const url = URL.createObjectURL(f);
        const m = marks.get(i);
        return h(
          'figure',
          { class: `thumb${m ? (m.warning ? ' warned' : ' refused') : ''}`, 'data-index': i },
          h('img', { src: url, alt: f.name, onload: () => URL.revokeObjectURL(url) }),
          m ? h('figcaption', { class: 'mark' }, `${i + 1}. ${m.text}`) : null,
          h(
            'button',
            {
              type: 'button',
              class: 'remove',
              'aria-label': t('remove_photo', { n: i + 1 }),
              onclick: () => {
                files.splice(i, 1);
                marks = new Map();
                render();
              },
            },
            '×',
          ),
        );
      }),
    );
  }
  const el = h(
    'div',
    { class: 'picker' },
    h('label', { class: 'button secondary camera' }, t('take_photos'), input),
    h('p', { class: 'hint' }, t('photos_hint')),
    thumbs,
  );
  return {
    el,
    files: () => files,
    clear: () => {
      files = [];
      marks = new Map();
      render();
    },
    mark: (m) => {
      marks = m;
      render();
    },
    add: (more) => {
      files = [...files, ...more];
      render();
    },
  };
}
