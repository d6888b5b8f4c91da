// The session page's downloads: the session as asciicast (plays in asciinema), as a text
// transcript, and as recorded (the raw files: a tar of the session directory). Each link is
// signed when clicked (a signature is valid for minutes only), then the browser downloads it.
import type { Api } from '../api.js';
import { h } from '../dom.js';

const KINDS: readonly (readonly [string, string, string, Record<string, string>])[] = [
  ['asciicast', 'asciicast', '/REST/iolog/export', { format: 'asciicast' }],
  ['text', 'text transcript', '/REST/iolog/export', { format: 'text' }],
  ['raw', 'raw (tar)', '/REST/iologfile', {}],
];

export function downloadLinks(api: Api, file: string): HTMLElement {
  const links = KINDS.map(([kind, label, path, extra]) => {
    const a = h('a', { href: '#', class: 'button small', download: '', 'data-download': kind, title: `Download the session as ${label}` }, `⤓ ${label}`);
    let signing = false;
    a.addEventListener('click', (ev) => {
      if (signing) return; // the signed click below
      ev.preventDefault();
      void api.signedUrl(path, { file, ...extra }).then((href) => {
        a.setAttribute('href', href);
        signing = true;
        a.click();
        signing = false;
        a.setAttribute('href', '#');
      });
    });
    return a;
  });
  return h('span', { class: 'downloads', role: 'group', 'aria-label': 'Download' }, h('span', { class: 'muted' }, 'Download:'), ...links);
}
