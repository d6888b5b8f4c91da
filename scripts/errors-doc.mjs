// Rewrites docs/errors.md from the compiled registry (run through `npm run docs:errors`).
import { writeFileSync } from 'node:fs';
import { renderErrorsDoc } from '../dist/errors-doc.js';

writeFileSync(new URL('../docs/errors.md', import.meta.url), renderErrorsDoc());
