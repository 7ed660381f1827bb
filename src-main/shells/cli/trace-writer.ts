import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { RunEvent } from '@shared/contracts/events';
import { traceLine } from '@shared/contracts/trace-format';

/** `--trace FILE`: every event as one JSON line (trace format 2: rounds from 1), written as it happens (a killed run keeps its trace). */
export function openTraceWriter(path: string): (event: RunEvent) => void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '');
  return (event) => appendFileSync(path, `${traceLine(event)}\n`);
}
