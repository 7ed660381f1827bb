/**
 * A workflow whose iterate can lose items (issue 28's partial outcome): words → iterate → an assert
 * per item (lowercase letters only) → collect → output. Shared by the engine, CLI and e2e tests.
 */
export function wordCheckWorkflow(options: { id: string; name: string; description?: string; concurrency?: number }) {
  return {
    format: 'steward/v1',
    kind: 'workflow',
    id: options.id,
    name: options.name,
    ...(options.description === undefined ? {} : { description: options.description }),
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'words', type: 'list' }] },
      { id: 'each', kind: 'iterate', ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }) },
      { id: 'work', kind: 'assert', checks: [{ check: 'regex', pattern: '^[a-z]+$' }] },
      { id: 'gather', kind: 'collect' },
      { id: 'out', kind: 'output', fields: [{ name: 'kept', type: 'list' }] },
    ],
    edges: [
      { from: { node: 'in', port: 'words' }, to: { node: 'each', port: 'list' } },
      { from: { node: 'each', port: 'item' }, to: { node: 'work', port: 'value' } },
      { from: { node: 'work', port: 'value' }, to: { node: 'gather', port: 'item' } },
      { from: { node: 'gather', port: 'list' }, to: { node: 'out', port: 'kept' } },
    ],
  };
}
