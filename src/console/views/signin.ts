// Sign-in: an appid and its key. The pair is checked with one signed call before it is kept
// (sessionStorage, this tab only); the key itself never leaves the page.
import { Api, ApiError, explain } from '../api.js';
import { saveCredentials } from '../credentials.js';
import { errorBox, field, h, input } from '../dom.js';

export function renderSignIn(root: HTMLElement, done: () => void): void {
  const appid = input('appid', { value: 'admin', required: true, autocomplete: 'username', id: 'signin-appid' });
  const key = input('key', { type: 'password', required: true, autocomplete: 'current-password', id: 'signin-key' });
  const status = h('div', { class: 'signin-status', 'aria-live': 'polite' });
  const button = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = h(
    'form',
    { class: 'signin card', 'aria-labelledby': 'signin-title' },
    h('h1', { id: 'signin-title' }, 'Sign in to the evio console'),
    h('p', { class: 'muted' }, 'Every call this page makes is signed with the app\'s key (HMAC-SHA256, docs/auth.md). The key stays in this tab; it is never sent.'),
    field('App id', appid),
    field('Key', key, 'evio serve prints where the key of "admin" is (admin.key); evio keys list --show-key shows keys'),
    button,
    status,
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    status.replaceChildren();
    const creds = { appid: appid.value.trim(), key: key.value.trim() };
    if (!creds.appid || !creds.key) {
      status.append(errorBox('Give an app id and its key.'));
      return;
    }
    button.disabled = true;
    button.textContent = 'Checking…';
    try {
      await new Api(creds).get('/REST/v2.0/events/destinations');
      saveCredentials(creds);
      done();
    } catch (err) {
      // 1605: the key is right, the app is just not allowed this route.
      if (err instanceof ApiError && err.status === 1605) {
        saveCredentials(creds);
        done();
        return;
      }
      status.append(errorBox(explain(err)));
      key.focus();
      key.select();
    } finally {
      button.disabled = false;
      button.textContent = 'Sign in';
    }
  });
  root.append(h('div', { class: 'signin-wrap' }, form));
  (appid.value ? key : appid).focus();
}
