import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { parseJsonText } from '@shared/util/json-syntax';
import { formatFileIssues } from '../spec/load-spec';
import { writeFileAtomic } from '../util/write-file-atomic';

/** A host-held registry file that is unreadable or damaged: nothing that depends on it proceeds. */
export class RegistryFileError extends Error {
  override readonly name = 'RegistryFileError';
}

/**
 * Reads one registry file, validated; `fallback` when it does not exist yet. A damaged file is an
 * error (fail closed: a lost override must not silently become the less protected default), and
 * the message says where, never what the file holds.
 */
export function readJsonFile<S extends z.ZodType>(path: string, schema: S, fallback: z.infer<S>): z.infer<S> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
    throw new RegistryFileError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new RegistryFileError(`${path} is damaged (not valid JSON at ${parsed.message}); fix or remove it`);
  const checked = schema.safeParse(parsed.value);
  if (!checked.success) throw new RegistryFileError(`${path} is damaged (${formatFileIssues(checked.error)}); fix or remove it`);
  return checked.data;
}

/** Writes a whole JSON file atomically (util/write-file-atomic.ts). */
export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, (write) => write(`${JSON.stringify(value, null, 2)}\n`));
}
