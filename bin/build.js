// `npm run build`: builds dist/ from src/. `--if-stale` (npm's `prepare`, which `npm ci` runs) builds
// only when a source is newer than the last build.
import { buildDist, staleReason } from './dist.js';

const reason = process.argv.includes('--if-stale') ? staleReason() : 'asked for';
if (reason && !buildDist(reason)) process.exit(1);
