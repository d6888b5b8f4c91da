// PostgreSQL URLs as evio names them: without pg loaded, so naming a store costs no start-up.

/** The URL with its password replaced by `***`, for names, messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*):[^@/]*@/, '$1:***@');
}
