import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
/** The reference server-everything, started with this Node (its long-running operation reports progress). */
export const everythingBin = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');

/** A workflow whose one tool node runs server-everything's long-running operation (`steps` reports over `duration` s). */
export function slowToolWorkflow(duration: number, steps: number) {
  return {
    format: 'steward/v1',
    kind: 'workflow',
    id: 'slow',
    name: 'Slow',
    servers: [{ id: 'ev', command: process.execPath, args: [everythingBin] }],
    // The reference server's shipped effects do not apply to a command-started server: described here.
    tool_effects: { 'ev/trigger-long-running-operation': { effect: 'read' } },
    nodes: [
      { id: 'op', kind: 'tool', server: 'ev', tool: 'trigger-long-running-operation', arguments: { duration, steps } },
      { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }] },
    ],
    edges: [{ from: { node: 'op', port: 'text' }, to: { node: 'out', port: 'said' } }],
  };
}
