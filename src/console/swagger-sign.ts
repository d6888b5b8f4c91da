// The Swagger UI's signer (loaded into /docs): a bar where the appid and key are typed once
// (kept in this tab's sessionStorage, shared with the console), and the request interceptor
// that signs every "Try it out" call by docs/auth.md with WebCrypto. Swagger UI accepts a
// promise from requestInterceptor, so the asynchronous WebCrypto calls need no pure-JS HMAC.
import { clearCredentials, loadCredentials, saveCredentials } from './credentials.js';
import { signUrl } from './sign.js';

interface SwaggerRequest {
  url: string;
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

async function signRequest(req: SwaggerRequest): Promise<SwaggerRequest> {
  const url = new URL(req.url, location.href);
  // Only the API's calls are signed (not the document itself, nor another origin).
  if (url.origin !== location.origin || !/\/REST(\/|$)/.test(url.pathname)) return req;
  const creds = loadCredentials();
  if (!creds) {
    showStatus('Type an app id and key above: the call was sent unsigned and will be refused (8119).', true);
    return req;
  }
  const body = typeof req.body === 'string' ? req.body : req.body === undefined || req.body === null ? '' : JSON.stringify(req.body);
  await signUrl(url, req.method ?? 'GET', creds, body);
  req.url = url.href;
  return req;
}

let statusEl: HTMLElement | null = null;

function showStatus(text: string, bad = false): void {
  if (!statusEl) return;
  statusEl.textContent = text;
  statusEl.className = bad ? 'evio-sign-status bad' : 'evio-sign-status';
}

function mountBar(): void {
  const bar = document.createElement('form');
  bar.className = 'evio-sign-bar';
  bar.setAttribute('aria-label', 'Sign calls');
  bar.innerHTML = `
    <strong>Sign "Try it out" calls</strong>
    <label>App id <input name="appid" autocomplete="username" size="12"></label>
    <label>Key <input name="key" type="password" autocomplete="current-password" size="30"></label>
    <button type="submit">Use</button>
    <button type="button" name="forget">Forget</button>
    <span class="evio-sign-status" role="status"></span>`;
  const style = document.createElement('style');
  style.textContent = `.evio-sign-bar{display:flex;gap:12px;align-items:center;flex-wrap:wrap;padding:10px 20px;background:#151a23;color:#e9edf3;font:14px system-ui,sans-serif}
.evio-sign-bar input{padding:4px 6px;border-radius:4px;border:1px solid #55606f;margin-left:4px}
.evio-sign-bar button{padding:4px 10px;border-radius:4px;border:1px solid #55606f;background:#2b3545;color:#fff;cursor:pointer}
.evio-sign-status{color:#9fe2a8}.evio-sign-status.bad{color:#ffb4a9}`;
  document.head.append(style);
  document.body.prepend(bar);
  statusEl = bar.querySelector('.evio-sign-status');
  const appid = bar.querySelector<HTMLInputElement>('input[name=appid]')!;
  const key = bar.querySelector<HTMLInputElement>('input[name=key]')!;
  const c = loadCredentials();
  if (c) {
    appid.value = c.appid;
    showStatus(`calls are signed as ${c.appid}`);
  } else {
    appid.value = 'admin';
    showStatus('not signing yet', true);
  }
  bar.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (!appid.value.trim() || !key.value.trim()) return showStatus('give both the app id and the key', true);
    saveCredentials({ appid: appid.value.trim(), key: key.value.trim() });
    key.value = '';
    showStatus(`calls are signed as ${appid.value.trim()}`);
  });
  bar.querySelector('button[name=forget]')!.addEventListener('click', () => {
    clearCredentials();
    showStatus('not signing', true);
  });
}

(window as unknown as { evioSignRequest: typeof signRequest }).evioSignRequest = signRequest;
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mountBar);
else mountBar();
