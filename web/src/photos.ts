import { h, mount } from './dom.js';
import { t } from './i18n.js';

export interface PhotoPicker {
  el: HTMLElement;
  files(): File[];
  clear(): void;
}

/**
 * Take photos with the phone's camera or choose them from the gallery; each shows as a
 * thumbnail and can be removed. The files stay here until the caller clears them, so a
 * refused or rate-limited request never loses them.
 */
export function photoPicker(opts: { multiple?: boolean; name?: string } = {}): PhotoPicker {
  let files: File[] = [];
  const thumbs = h('div', { class: 'thumbs' });
  const input = h('input', {
    type: 'file', accept: 'image/*', capture: 'environment', multiple: opts.multiple !== false, name: opts.name ?? 'photos', class: 'visually-hidden',
    onchange: () => {
      const picked = Array.from(input.files ?? []);
      files = opts.multiple === false ? picked.slice(0, 1) : [...files, ...picked];
      input.value = '';
      render();
    },
  });
  function render() {
    mount(thumbs, files.map((f, i) => {
      const url = URL.createObjectURL(f);
      return h('figure', { class: 'thumb' },
        h('img', { src: url, alt: f.name, onload: () => URL.revokeObjectURL(url) }),
        h('button', { type: 'button', class: 'remove', 'aria-label': '×', onclick: () => { files.splice(i, 1); render(); } }, '×'));
    }));
  }
  const el = h('div', { class: 'picker' },
    h('label', { class: 'button secondary camera' }, t('take_photos'), input),
    h('p', { class: 'hint' }, t('photos_hint')),
    thumbs);
  return { el, files: () => files, clear: () => { files = []; render(); } };
}
