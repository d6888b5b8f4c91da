// The one check of an ODBC data source name, made where a request or a store name is read (a
// parameter error, 400) and again by the store itself: a name can never add attributes to the
// connection string (`;`, `=`, braces) or reach the driver manager as something else.
import { evioError } from '../../errors.js';

/** DSN names as unixODBC writes them in odbc.ini section headers. */
const DSN_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.\- ]{0,63}$/;

/** Returns `dsn`, or throws QUERY_BAD_DSN naming the rule. */
export function checkDsnName(dsn: string): string {
  if (!DSN_NAME.test(dsn)) {
    throw evioError('QUERY_BAD_DSN', `dsn "${dsn.slice(0, 80)}" is not a data source name: 1-64 letters, digits, _ . - and spaces, starting with a letter, digit or _`);
  }
  return dsn;
}
