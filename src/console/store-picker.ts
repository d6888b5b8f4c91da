// The event logs the settings name (GET /REST/v2.0/events/stores), offered beside the events
// view's "Event log" field: choosing one fills the format and the file. When the tab has not
// chosen a log yet (no format in the URL, none remembered), the view opens on the first one that
// has records: after importing into the flat file, the console opens on it, not on a default
// database that was never created.
import type { Api } from './api.js';
import { field, h, select } from './dom.js';

export interface KnownStore {
  format: 'ff' | 'db' | 'odbc';
  file: string;
  setting: string;
  exists: boolean;
  records: boolean;
  error?: string;
}

export function storeLabel(s: KnownStore): string {
  const what = s.format === 'ff' ? `flat file ${s.file}` : s.format === 'odbc' ? `ODBC ${s.file}` : s.file ? `database ${s.file}` : 'default database';
  const state = s.records ? 'has records' : s.exists ? 'empty' : 'does not exist';
  return `${what} — ${state}`;
}

/**
 * Adds the picker to the row of the format select and, when `choose`, sets format and file to the
 * first store with records. Resolves once done (at once when the server has no such call).
 */
export async function storePicker(api: Api, format: HTMLSelectElement, file: HTMLInputElement, choose: boolean): Promise<void> {
  let stores: KnownStore[];
  try {
    stores = (await api.get<{ stores: KnownStore[] }>('/REST/v2.0/events/stores')).stores;
  } catch {
    return;
  }
  if (!stores.length) return;
  const value = (s: KnownStore) => `${s.format}:${s.file}`;
  const picker = select('store', [['', 'choose…'], ...stores.map((s) => [value(s), storeLabel(s)] as const)]);
  picker.setAttribute('data-stores', String(stores.length));
  const sync = (): void => {
    const v = `${format.value}:${file.value.trim()}`;
    picker.value = stores.some((s) => value(s) === v) ? v : '';
  };
  picker.addEventListener('change', () => {
    const s = stores.find((x) => value(x) === picker.value);
    if (!s) return;
    format.value = s.format;
    file.value = s.file;
    format.dispatchEvent(new Event('change'));
  });
  format.addEventListener('change', sync);
  file.addEventListener('input', sync);
  format.closest('.row')?.append(field('Configured logs', picker, 'the logs the settings name', 'narrow'));
  if (choose) {
    const first = stores.find((s) => s.records);
    if (first) {
      format.value = first.format;
      file.value = first.file;
      format.dispatchEvent(new Event('change'));
    }
  }
  sync();
}
