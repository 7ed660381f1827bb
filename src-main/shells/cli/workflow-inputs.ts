import type { WorkflowGraph } from '@shared/workflow/document';
import { readJson } from '../../spec/load-spec';
import { SpecError } from '../../spec/spec-errors';

/**
 * `--inputs FILE.json` (an object) then each `--input key=value` over it. A value for a text field
 * stays text; for any other field it is read as JSON when it parses ("3", "[1,2]", "true"), else text.
 */
export function workflowInputs(graph: WorkflowGraph, pairs: readonly string[], file?: string): Record<string, unknown> {
  // Keys are a person's data, kept as own entries: `__proto__` is a key like any other (refused as undeclared
  // by the run's check), never a way to give the inputs a prototype that answers for a required field.
  const inputs = new Map<string, unknown>();
  if (file !== undefined) {
    const value = readJson(file, 'inputs file');
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new SpecError(`inputs file ${file} must hold one JSON object (field → value)`);
    for (const [key, field] of Object.entries(value)) inputs.set(key, field);
  }
  const types = new Map(graph.nodes.flatMap((n) => (n.kind === 'input' ? n.fields.map((f) => [f.name, f.type] as const) : [])));
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new SpecError(`--input takes key=value (got "${pair.slice(0, 80)}")`);
    const key = pair.slice(0, eq);
    const raw = pair.slice(eq + 1);
    inputs.set(key, types.get(key) === 'text' ? raw : parseOrText(raw));
  }
  return Object.fromEntries(inputs);
}

function parseOrText(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}
