import { randomBytes, randomInt } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Issue 27: a PIN typed at run start that flows into a sensitive tool argument. `pin` is long (masked
 * by value wherever it shows), `code` is shorter than values are searched for (masked where the
 * flow puts it); both go through a template into `write_file`'s `content`, declared sensitive, and
 * on a side branch into the run's output. `owner` is not sensitive: it names the file written.
 */
export interface PlantedPins {
  pin: string;
  code: string;
  owner: string;
}

export function plantedPins(): PlantedPins {
  const letters = Array.from({ length: 3 }, () => String.fromCharCode(65 + randomInt(26))).join('');
  return { pin: `pin-${randomBytes(8).toString('hex')}`, code: `§${letters}`, owner: `owner${randomInt(1000, 9999)}` };
}

/** The effect that makes `content` sensitive (a user's setting: masking needs no person). */
export const MASKED_WRITE = { effect: 'irreversible_write', requires_user_confirmation: false, idempotency_supported: true, sensitive_arguments: ['content'] } as const;

/** Nodes and edges of the workflow; `servers`, `workspace` and effects differ between a file and the app's stored form. */
export function pinGraph(id: string): Record<string, unknown> {
  return {
    format: 'steward/v1',
    kind: 'workflow',
    id,
    name: 'PIN setter',
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'pin', type: 'text' }, { name: 'code', type: 'text' }, { name: 'owner', type: 'text' }] },
      { id: 'card', kind: 'template', inputs: [{ name: 'pin', type: 'text' }, { name: 'code', type: 'text' }], template: 'PIN {{pin}} / code {{code}}' },
      { id: 'set', kind: 'tool', server: 'fs', tool: 'write_file', inputs: [{ name: 'card', type: 'text' }, { name: 'owner', type: 'text' }], arguments: { path: 'card-{{owner}}.txt', content: '{{card}}' } },
      { id: 'note', kind: 'template', inputs: [{ name: 'pin', type: 'text' }, { name: 'code', type: 'text' }, { name: 'owner', type: 'text' }], template: 'PIN {{pin}} ({{code}}) set for {{owner}}' },
      { id: 'out', kind: 'output', fields: [{ name: 'note', type: 'text' }, { name: 'written', type: 'text' }] },
    ],
    edges: [
      { from: { node: 'in', port: 'pin' }, to: { node: 'card', port: 'pin' } },
      { from: { node: 'in', port: 'code' }, to: { node: 'card', port: 'code' } },
      { from: { node: 'card', port: 'output' }, to: { node: 'set', port: 'card' } },
      { from: { node: 'in', port: 'owner' }, to: { node: 'set', port: 'owner' } },
      { from: { node: 'in', port: 'pin' }, to: { node: 'note', port: 'pin' } },
      { from: { node: 'in', port: 'code' }, to: { node: 'note', port: 'code' } },
      { from: { node: 'in', port: 'owner' }, to: { node: 'note', port: 'owner' } },
      { from: { node: 'note', port: 'output' }, to: { node: 'out', port: 'note' } },
      { from: { node: 'set', port: 'text' }, to: { node: 'out', port: 'written' } },
    ],
  };
}

/** The forms a planted value could be stored in: as typed, and JSON-escaped (`§` as `\u00a7`). */
function formsOf(value: string): string[] {
  return [...new Set([value, JSON.stringify(value).slice(1, -1), value.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)])];
}

/** Which of the planted values a text holds (empty: none). */
export function plantedIn(text: string, pins: Pick<PlantedPins, 'pin' | 'code'>): string[] {
  return [pins.pin, pins.code].filter((v) => formsOf(v).some((f) => text.includes(f)));
}

/**
 * Every file under a folder (SQLite's database, WAL and journal included) that holds a planted value,
 * with which. `except`: subfolders left out (a workspace, where the tool wrote the real value).
 */
export function filesHoldingPlanted(folder: string, pins: Pick<PlantedPins, 'pin' | 'code'>, except: readonly string[] = []): string[] {
  const found: string[] = [];
  const visit = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (except.includes(relative(folder, path))) continue;
      const stat = statSync(path, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory()) visit(path);
      else if (stat.isFile()) {
        const bytes = readFileSync(path);
        const held = [pins.pin, pins.code].filter((v) => formsOf(v).some((f) => bytes.includes(Buffer.from(f, 'utf8'))));
        if (held.length > 0) found.push(`${relative(folder, path)}: ${held.join(', ')}`);
      }
    }
  };
  visit(folder);
  return found;
}
