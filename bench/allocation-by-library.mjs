// What a sampling heap profile (bench/boundary-profile.ts PROFILE_HEAP_OUT) allocated, in KB a round, by the
// library or project file whose function allocated it, and by the innermost project function on its stack:
//   node bench/allocation-by-library.mjs FILE ROUNDS [N]
import { readFileSync } from 'node:fs';
import { libraryOf, sourcePath as where } from './profile-paths.mjs';

const [file, rounds = '1', n = '20'] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byLibrary = new Map();
const byProject = new Map();
let total = 0;
const walk = (node, project) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const inProject = /^src-(main|shared)\//.test(where(url)) ? `${functionName || '(anon)'} ${where(url)}:${lineNumber + 1}` : project;
  if (node.selfSize > 0) {
    const lib = libraryOf(url) || functionName || '(native)';
    byLibrary.set(lib, (byLibrary.get(lib) ?? 0) + node.selfSize);
    byProject.set(inProject ?? '(outside the project)', (byProject.get(inProject ?? '(outside the project)') ?? 0) + node.selfSize);
    total += node.selfSize;
  }
  for (const child of node.children ?? []) walk(child, inProject);
};
walk(profile.head, undefined);
const kb = (bytes) => (bytes / Number(rounds) / 1024).toFixed(2).padStart(8);
console.log(`${kb(total)} KB a round in all (${rounds} rounds)`);
console.log('\nby the library or file that allocated (a native constructor, e.g. Set, by its name):');
for (const [key, bytes] of [...byLibrary].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`${kb(bytes)} KB  ${key}`);
console.log('\nby the innermost project function on the stack:');
for (const [key, bytes] of [...byProject].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`${kb(bytes)} KB  ${key}`);
