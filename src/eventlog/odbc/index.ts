export { OdbcStore, type OdbcStoreOptions } from './odbc-store.js';
export { loadOdbc, ODBC_INSTALL_HINT } from './odbc-module.js';
