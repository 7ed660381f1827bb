// fs.globSync for Node 20 (Node 22 has it), only as much as the conformance suite uses: patterns of
// `*`, `**` and `?` matched against paths under `cwd` (default the process's), relative, `/`-separated.
import { readdirSync } from 'node:fs';
import { sep } from 'node:path';

function toRegExp(pattern) {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      const slash = pattern[i + 2] === '/';
      out += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

export function globSync(patterns, options = {}) {
  const cwd = options.cwd === undefined ? process.cwd() : String(options.cwd);
  const matchers = (Array.isArray(patterns) ? patterns : [patterns]).map(toRegExp);
  let entries;
  try {
    entries = readdirSync(cwd, { recursive: true });
  } catch {
    return [];
  }
  return entries.map((entry) => String(entry).split(sep).join('/')).filter((path) => matchers.some((m) => m.test(path)));
}
