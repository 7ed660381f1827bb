// `node --import ./node20-register.mjs`: installs node20-hooks.mjs when this Node lacks fs.globSync.
import fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') register('./node20-hooks.mjs', import.meta.url);
