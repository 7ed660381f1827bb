import type { NodeOf } from '@shared/workflow/document';
import { renderJsonTemplate, renderTemplate } from '@shared/workflow/template';
import { runChecks } from '@shared/workflow/assert-checks';
import { failed, type NodeOutcome } from './node-outcome';

/** A template node: text (`{{name}}` → the input, objects as JSON) or JSON whose strings are templated. */
export function runTemplateNode(node: NodeOf<'template'>, inputs: Record<string, unknown>): NodeOutcome {
  const result =
    node.format === 'json'
      ? renderJsonTemplate(node.template, inputs)
      : typeof node.template === 'string'
        ? renderTemplate(node.template, inputs)
        : ({ ok: false, message: 'a text template must be a string' } as const);
  return result.ok ? { status: 'done', outputs: { output: result.value } } : failed('template_error', result.message);
}

/** An assert node passes its `value` on when every check holds, and fails with the first reason otherwise. */
export function runAssertNode(node: NodeOf<'assert'>, inputs: Record<string, unknown>): NodeOutcome {
  const value = inputs.value;
  const checked = runChecks(node.checks, value);
  return checked.ok ? { status: 'done', outputs: { value } } : failed('assert_failed', checked.reason);
}
