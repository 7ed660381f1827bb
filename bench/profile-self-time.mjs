// Self time by function in a V8 .cpuprofile (node --cpu-prof), top N: node bench/profile-self-time.mjs FILE [N] [FILTER]
// (PROFILE_ROUNDS=N adds ms a round by where each sample entered the project: see the end of this file.)
// FILTER (a regular expression on url) keeps only the samples of functions from matching files.
import { readFileSync } from 'node:fs';
import { libraryOf, sourcePath } from './profile-paths.mjs';

const [file, n = '40'] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const counts = new Map();
for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
const dt = (profile.endTime - profile.startTime) / profile.samples.length / 1000;
const self = new Map();
let total = 0;
for (const [id, c] of counts) {
  const { callFrame } = byId.get(id);
  const where = callFrame.url.replace(/^.*node_modules\//, 'nm/').replace(/^.*\/work\/main\//, '');
  const key = `${callFrame.functionName || '(anon)'} ${where}:${callFrame.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + c);
  total += c;
}
// By file too: where the time goes by module.
const byFile = new Map();
for (const [key, c] of self) {
  const file = key.split(' ').slice(1).join(' ').replace(/:\d+$/, '') || '(native)';
  byFile.set(file, (byFile.get(file) ?? 0) + c);
}
console.log(`samples ${total}, ${(total * dt).toFixed(0)} ms`);
for (const [key, c] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`${(c * dt).toFixed(1).padStart(8)} ms ${((100 * c) / total).toFixed(1).padStart(5)}%  ${key}`);
console.log('\nby file:');
for (const [key, c] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`${(c * dt).toFixed(1).padStart(8)} ms ${((100 * c) / total).toFixed(1).padStart(5)}%  ${key}`);

// Inclusive time of functions whose name matches INCLUSIVE (a regular expression), counted once per sample.
if (process.env.INCLUSIVE) {
  const match = new RegExp(process.env.INCLUSIVE);
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const incl = new Map();
  for (const [id, c] of counts) {
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const { callFrame } = byId.get(at);
      const name = callFrame.functionName || '(anon)';
      const key = `${name} ${callFrame.url.replace(/^.*node_modules\//, 'nm/').replace(/^.*\/work\/main\//, '')}`;
      if (!match.test(key) || seen.has(key)) continue;
      seen.add(key);
      incl.set(key, (incl.get(key) ?? 0) + c);
    }
  }
  console.log('\ninclusive:');
  for (const [key, c] of [...incl].sort((a, b) => b[1] - a[1])) console.log(`${(c * dt).toFixed(1).padStart(8)} ms ${((100 * c) / total).toFixed(1).padStart(5)}%  ${key}`);
}

// Where time under functions matching CALLERS (a regular expression on "name url") comes from: the nearest caller in the project's own source.
if (process.env.CALLERS) {
  const match = new RegExp(process.env.CALLERS);
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const label = (at) => {
    const { callFrame } = byId.get(at);
    return `${callFrame.functionName || '(anon)'} ${callFrame.url.replace(/^.*node_modules\//, 'nm/').replace(/^.*\/work\/main\//, '')}`;
  };
  const from = new Map();
  for (const [id, c] of counts) {
    let at = id;
    while (at !== undefined && !match.test(label(at))) at = parent.get(at);
    if (at === undefined) continue;
    let up = parent.get(at);
    while (up !== undefined && (match.test(label(up)) || !new RegExp(process.env.CALLER_FILES ?? " src-(main|shared)/").test(label(up)))) up = parent.get(up);
    const key = up === undefined ? '(none)' : label(up);
    from.set(key, (from.get(key) ?? 0) + c);
  }
  console.log(`\ncallers of ${process.env.CALLERS}:`);
  for (const [key, c] of [...from].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${(c * dt).toFixed(1).padStart(8)} ms  ${key}`);
}

// PROFILE_ROUNDS=N (the rounds the profile spans, e.g. 2020 for 10 runs × 200 after a 20-round warm-up):
// every non-idle sample charged to the innermost project function on its stack (src-main, src-shared),
// so library and runtime time counts where the project called it; in ms a round, by file and by function.
const rounds = Number(process.env.PROFILE_ROUNDS ?? 0);
if (rounds > 0) {
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const where = (node) => sourcePath(node.callFrame.url);
  const entryFiles = new Map();
  const entryFunctions = new Map();
  for (const id of profile.samples) {
    const leaf = byId.get(id);
    if (leaf.callFrame.functionName === '(idle)' || leaf.callFrame.functionName === '(program)') continue;
    let at = id;
    let entry;
    while (at !== undefined) {
      const node = byId.get(at);
      if (/^src-(main|shared)\//.test(where(node))) {
        entry = node;
        break;
      }
      at = parent.get(at);
    }
    const file = entry ? where(entry) : leaf.callFrame.functionName === '(garbage collector)' ? '(garbage collector)' : '(outside the project)';
    const fn = entry ? `${entry.callFrame.functionName || '(anon)'} ${file}:${entry.callFrame.columnNumber}` : file;
    entryFiles.set(file, (entryFiles.get(file) ?? 0) + 1);
    entryFunctions.set(fn, (entryFunctions.get(fn) ?? 0) + 1);
  }
  const perRound = (c) => ((c * dt) / rounds).toFixed(4).padStart(8);
  // Self time by the library (or project file, or native function) the sampled function belongs to: XState's own code, zod's, SQLite's `run`.
  const byLibrary = new Map();
  for (const id of profile.samples) {
    const { callFrame } = byId.get(id);
    if (callFrame.functionName === '(idle)') continue;
    const lib = libraryOf(callFrame.url) || callFrame.functionName || '(native)';
    byLibrary.set(lib, (byLibrary.get(lib) ?? 0) + 1);
  }
  console.log(`\nms a round of self time by library or file (${rounds} rounds):`);
  for (const [key, c] of [...byLibrary].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`${perRound(c)}  ${key}`);
  console.log(`\nms a round by the innermost project file (${rounds} rounds):`);
  for (const [key, c] of [...entryFiles].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`${perRound(c)}  ${key}`);
  console.log('\nms a round by the innermost project function (column in the transpiled file):');
  for (const [key, c] of [...entryFunctions].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`${perRound(c)}  ${key}`);
}
