import { call, errorText } from './api.js';
import { field, h, notice } from './dom.js';
import { t } from './i18n.js';

/** Sign in or create an account. The token in the answer is ignored: the cookie carries the session. */
export function authView(onSignedIn: (username: string) => void): HTMLElement {
  const user = h('input', { name: 'username', autocomplete: 'username', required: true, autocapitalize: 'none', spellcheck: false });
  const pass = h('input', { name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const msg = h('div', { 'aria-live': 'polite' });
  async function submit(path: '/api/login' | '/api/signup') {
    msg.replaceChildren(notice('info', t('working')));
    const r = await call('POST', path, { username: user.value.trim(), password: pass.value });
    if (!r.ok) return msg.replaceChildren(notice('error', errorText(r)));
    pass.value = '';
    onSignedIn(r.json.account?.username ?? user.value.trim());
  }
  return h(
    'section',
    { class: 'card auth' },
    h('h2', {}, t('sign_in')),
    h('p', {}, t('auth_intro')),
    h(
      'form',
      {
        onsubmit: (e: Event) => {
          e.preventDefault();
          void submit('/api/login');
        },
      },
      field(t('username'), user),
      field(t('password'), pass),
      h(
        'div',
        { class: 'row' },
        h('button', { type: 'submit', class: 'primary', name: 'login' }, t('sign_in')),
        h('button', { type: 'button', class: 'secondary', name: 'signup', onclick: () => void submit('/api/signup') }, t('sign_up')),
      ),
    ),
    msg,
    // A shopper checking a fruit has no account and needs none.
    h('p', {}, h('a', { href: '#/shop', name: 'shop' }, t('shop_link'))),
  );
}
