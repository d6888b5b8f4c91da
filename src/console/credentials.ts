// The signed-in app: kept in this tab's sessionStorage (gone when the tab closes), never sent —
// only signatures made with the key leave the page. The Swagger UI's signer reads the same entry.
import type { Credentials } from './sign.js';

export const STORAGE_KEY = 'evio.console.credentials';

export function loadCredentials(): Credentials | null {
  try {
    const v = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as Partial<Credentials> | null;
    return v && typeof v.appid === 'string' && typeof v.key === 'string' ? { appid: v.appid, key: v.key } : null;
  } catch {
    return null;
  }
}

export function saveCredentials(c: Credentials): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(c));
}

export function clearCredentials(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}
