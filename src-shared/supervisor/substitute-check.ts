import type { PortType, WorkflowNode } from '../workflow/document';
import { outputSchemaProblem } from '../workflow/output-schema';
import { portsOf, type OutputPort } from '../workflow/ports';
import type { SubstituteCheck } from './machine';

/**
 * The substitute validator for Steward's node outputs (seed 004 design §5.2): a substitute is
 * offered only when a validator covers the node's *whole* declared output, and accepted only when
 * it passes. A port typed `any` (a tool's `result`, a JSON template) cannot be checked, so a node
 * with one is not covered and never gets `substitute`: a made-up value would flow on unverified.
 */

const CHECKS = {
  any: () => false,
  text: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  boolean: (v) => typeof v === 'boolean',
  object: (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
  list: (v) => Array.isArray(v),
} satisfies Record<PortType, (v: unknown) => boolean>;

/** Every output port has a checkable type. */
export function validatorCoversOutput(node: WorkflowNode): boolean {
  const outputs = portsOf(node).outputs;
  return outputs.length > 0 && outputs.every((p) => p.type !== 'any');
}

/** The value must give every declared port a value of its type, and nothing else. */
export function checkSubstitute(node: WorkflowNode, value: Record<string, unknown>): SubstituteCheck {
  const outputs: OutputPort[] = portsOf(node).outputs;
  const problems: string[] = [];
  for (const p of outputs) {
    if (!Object.hasOwn(value, p.name)) problems.push(`${p.name}: missing`);
    else if (!CHECKS[p.type](value[p.name])) problems.push(p.type === 'any' ? `${p.name}: cannot be checked` : `${p.name}: expected ${p.type}`);
  }
  for (const k of Object.keys(value)) if (!outputs.some((p) => p.name === k)) problems.push(`${k}: not an output of ${node.id}`);
  // An agent with an output schema: the substitute's answer must meet it, as the agent's own had to.
  if (node.kind === 'agent' && node.output_schema !== undefined && problems.length === 0) {
    const problem = outputSchemaProblem(node.output_schema, value.output);
    if (problem !== undefined) problems.push(`output: ${problem}`);
  }
  return problems.length === 0 ? { ok: true } : { ok: false, problems: problems.join('; ') };
}
