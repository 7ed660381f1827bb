import type { PortType, WorkflowGraph } from '@shared/workflow/document';
import { setOwn } from '@shared/util/set-own';

function hasType(value: unknown, type: PortType): boolean {
  switch (type) {
    case 'any':
      return true;
    case 'text':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'list':
      return Array.isArray(value);
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
  }
}

/**
 * The run's inputs against the input nodes' fields: defaults filled in, a required field without a
 * value or a value of the wrong type refused by name, a value no field declares refused (a typo).
 */
export function checkInputs(graph: WorkflowGraph, given: Record<string, unknown>): { ok: true; inputs: Record<string, unknown> } | { ok: false; message: string } {
  const inputs: Record<string, unknown> = {};
  const problems: string[] = [];
  const declared = new Set<string>();
  for (const node of graph.nodes) {
    if (node.kind !== 'input') continue;
    for (const field of node.fields) {
      declared.add(field.name);
      const value = (Object.hasOwn(given, field.name) ? given[field.name] : undefined) ?? field.default;
      if (value === undefined) {
        if (field.required) problems.push(`input ${field.name} is required (--input ${field.name}=…)`);
        continue;
      }
      if (!hasType(value, field.type)) problems.push(`input ${field.name} must be ${field.type === 'list' ? 'a JSON list' : field.type === 'object' ? 'a JSON object' : `a ${field.type}`}`);
      setOwn(inputs, field.name, value);
    }
  }
  for (const name of Object.keys(given)) if (!declared.has(name)) problems.push(`the workflow has no input ${name} (it has: ${[...declared].join(', ') || 'none'})`);
  return problems.length > 0 ? { ok: false, message: problems.join('; ') } : { ok: true, inputs };
}
