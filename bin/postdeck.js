#!/usr/bin/env node
// Postdeck's command line: the compiled code in dist/. In a checkout, dist/ is built first when a
// source is newer than the last build, so neither `git pull` nor an edit needs a build step.
import { ensureDist } from './dist.js';

ensureDist(process.argv[2]);
await import('../dist/cli/index.js');
