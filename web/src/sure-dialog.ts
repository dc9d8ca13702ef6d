import { h, type Child } from './dom.js';
import { tm } from './i18n-merge.js';

/**
 * Asks before an act on an animal that moves or removes photos (merge, un-merge, delete): a
 * modal dialog whose text is one whole sentence naming what will happen, with the photos it
 * concerns, instead of the browser's bare "Merge?" (issue 39 item 7). Resolves true only when the
 * act's own button is pressed; Escape, the cancel button or closing the dialog is a no.
 */
export function askSure(o: { sentence: string; act: string; name: string; danger?: boolean; photos?: Child }): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = h(
      'dialog',
      { class: 'card sure', 'aria-labelledby': `${o.name}-sentence` },
      h('p', { id: `${o.name}-sentence` }, h('strong', {}, o.sentence)),
      o.photos ?? null,
      h(
        'div',
        { class: 'row wrap' },
        h(
          'button',
          { type: 'button', class: o.danger ? 'danger' : 'primary', name: `${o.name}-confirm`, onclick: () => close(true) },
          o.act,
        ),
        h('button', { type: 'button', class: 'secondary', name: `${o.name}-cancel`, onclick: () => close(false) }, tm('cancel')),
      ),
    );
    let answered = false;
    function close(yes: boolean) {
      if (answered) return;
      answered = true;
      dialog.close();
      dialog.remove();
      resolve(yes);
    }
    dialog.addEventListener('close', () => close(false));
    document.body.append(dialog);
    dialog.showModal();
  });
}
