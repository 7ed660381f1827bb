import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { NODE_KINDS, type NodeKind } from '../src-shared/workflow/document';
import { HostedWorkflowGraph } from '../src-shared/workflow/hosted-graph';
import { portsOf } from '../src-shared/workflow/ports';
import { formatGraphProblem } from '../src-shared/workflow/validate-graph';
import { inspectServer } from '../src-main/mcp/inspect-server';
import { HostRegistry } from '../src-main/registry/host-registry';
import { EXIT, runCli } from '../src-main/shells/cli/cli';
import { ToolListCache, validateDraft } from '../src-main/workflow/validate-draft';
import { addNode, connect, removeElements, replaceNode, type Draft } from '../src-renderer/screens/editor/graph-edit';
import { exportText, newWorkflowDraft } from '../src-renderer/screens/editor/workflow-file';

/**
 * Issue 22: any document the editor can save validates in the CLI — `steward validate` reads the
 * file the editor exports (never "unknown key"), and its verdict is the host's check the editor
 * shows: valid exactly when the Problems list is empty, and every problem listed is one it prints.
 */

const dir = mkdtempSync(join(tmpdir(), 'steward-editor-docs-'));
const dataDir = join(dir, 'data');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// No servers: a tool node is added without one (the editor leaves it for the person to fill).
const KINDS = NODE_KINDS.filter((k): k is Exclude<NodeKind, 'tool'> => k !== 'tool');

type Edit =
  | { op: 'add'; kind: NodeKind; x: number; y: number }
  | { op: 'connect'; from: number; out: number; to: number; into: number }
  | { op: 'remove'; node: number }
  | { op: 'label'; node: number; label: string }
  | { op: 'template'; node: number; text: string }
  | { op: 'servers' }
  | { op: 'tool'; node: number; tool: string; args: Record<string, unknown> };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('add' as const), kind: fc.constantFrom(...KINDS, 'tool' as const), x: fc.integer({ min: -500, max: 2000 }), y: fc.integer({ min: -500, max: 2000 }) }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constant('connect' as const), from: fc.nat(20), out: fc.nat(4), to: fc.nat(20), into: fc.nat(4) }), weight: 4 },
  fc.record({ op: fc.constant('remove' as const), node: fc.nat(20) }),
  fc.record({ op: fc.constant('label' as const), node: fc.nat(20), label: fc.string({ maxLength: 130 }) }),
  fc.record({ op: fc.constant('template' as const), node: fc.nat(20), text: fc.constantFrom('hi {{text}}', '{{missing}}', 'plain', '${specDir}', '${nope}') }),
  // The workflow panel: the shipped filesystem server and a registered workspace (rarer: each such document starts it in the CLI).
  { arbitrary: fc.constant({ op: 'servers' as const }), weight: 1 },
  {
    weight: 3,
    arbitrary: fc.record({
    op: fc.constant('tool' as const),
    node: fc.nat(20),
    tool: fc.constantFrom('list_directory', 'read_text_file', 'no_such_tool'),
    args: fc.constantFrom<Record<string, unknown>>({ path: '.' }, { path: '../elsewhere' }, { path: '/etc' }, { pathh: '.' }, {}, { path: '{{text}}' }),
    }),
  },
);

/** The editor's own edits (graph-edit.ts), as a person makes them on the canvas and in the inspector. */
function apply(draft: Draft, e: Edit): Draft {
  const nth = (i: number) => draft.nodes[i % Math.max(1, draft.nodes.length)];
  switch (e.op) {
    case 'add':
      return addNode(draft, e.kind, { x: e.x, y: e.y }).draft;
    case 'connect': {
      const from = nth(e.from);
      const to = nth(e.to);
      if (!from || !to) return draft;
      const outs = portsOf(from).outputs;
      const ins = portsOf(to).inputs;
      const out = outs[e.out % Math.max(1, outs.length)];
      const into = ins[e.into % Math.max(1, ins.length)];
      return out && into ? connect(draft, { from: { node: from.id, port: out.name }, to: { node: to.id, port: into.name } }) : draft;
    }
    case 'remove': {
      const node = nth(e.node);
      return node ? removeElements(draft, [node.id], []) : draft;
    }
    case 'label': {
      const node = nth(e.node);
      return node ? replaceNode(draft, node.id, { ...node, label: e.label }) : draft;
    }
    case 'servers':
      return { ...draft, workspace: 'ws', servers: [{ id: 'fs', server: 'filesystem' }] };
    case 'tool': {
      const toolNodes = draft.nodes.filter((n) => n.kind === 'tool');
      const node = toolNodes[e.node % Math.max(1, toolNodes.length)];
      // The inspector's server and tool pickers, and its Arguments field.
      return node?.kind === 'tool' ? replaceNode(draft, node.id, { ...node, server: draft.servers[0]?.id ?? node.server, tool: e.tool, arguments: e.args }) : draft;
    }
    case 'template': {
      const node = nth(e.node);
      if (node?.kind === 'template') return replaceNode(draft, node.id, { ...node, template: e.text });
      if (node?.kind === 'agent') return replaceNode(draft, node.id, { ...node, task: e.text });
      return draft;
    }
  }
}

const registry = new HostRegistry(dataDir);
mkdirSync(join(dataDir, 'ws'), { recursive: true });
registry.putWorkspace({ id: 'ws', label: 'Workspace', path: join(dataDir, 'ws'), in_data_folder: true });
// The host's own listing of the shipped server's tools (once: the cache keeps them).
const tools = new ToolListCache((server, workspace) => inspectServer(server, { workspace, cwd: dataDir }));

/** Saves the draft as the editor does, validates its export with the CLI and with the host; false when the editor could not save it. */
async function agree(draft: Draft): Promise<{ saved: boolean; clean?: boolean }> {
  // What Save sends: the draft as the schema takes it (EditorScreen's doSave).
  const parsed = HostedWorkflowGraph.safeParse(draft);
  if (!parsed.success) return { saved: false };
  const { fileName, text } = exportText(parsed.data);
  const file = join(dir, fileName);
  writeFileSync(file, text);
  let out = '';
  const code = await runCli(['validate', file, '--data-dir', dataDir], { stdout: (t) => (out += t), stderr: (t) => (out += t), env: {} });
  const host = await validateDraft(parsed.data, registry, tools);
  expect(out).not.toMatch(/not a valid Steward workflow|unknown field|unknown key/);
  expect(host.saveable).toBe(true);
  expect({ code, out }).toEqual({ code: host.problems.length === 0 ? EXIT.ok : EXIT.badInput, out: expect.any(String) });
  for (const problem of host.problems) expect(out).toContain(formatGraphProblem(problem));
  return { saved: true, clean: host.problems.length === 0 };
}

describe('what the editor saves, steward validate reads', () => {
  it('any saveable document validates in the CLI exactly when the host finds no problem, printing each problem the editor lists', async () => {
    const verdicts = { saved: 0, clean: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(edit.filter((e) => e.op !== 'servers'), { maxLength: 12 }), async (edits) => {
        const { saved, clean } = await agree(edits.reduce(apply, newWorkflowDraft([])));
        verdicts.saved += saved ? 1 : 0;
        verdicts.clean += clean ? 1 : 0;
      }),
      // CI found this one: an agent's `${nope}` stopped the CLI before its problems were listed.
      { numRuns: 60, examples: [[[{ op: 'add', kind: 'agent', x: 0, y: 0 }, { op: 'template', node: 8, text: '${nope}' }]]] },
    );
    // The property held over both verdicts, not only over documents with problems.
    expect(verdicts.saved).toBeGreaterThan(20);
    expect(verdicts.clean).toBeGreaterThan(0);
  });

  it("with the filesystem server: tool nodes' tools and arguments get the same verdict from both", { timeout: 90_000 }, async () => {
    const base = addNode(apply(newWorkflowDraft([]), { op: 'servers' }), 'tool', { x: 200, y: 300 }).draft;
    const verdicts = { saved: 0, clean: 0 };
    await fc.assert(
      // Each document starts the server in the CLI: a few documents, every one with a tool node filled in.
      fc.asyncProperty(edit.filter((e) => e.op === 'tool'), fc.array(edit, { maxLength: 6 }), async (tool, edits) => {
        const { saved, clean } = await agree([tool, ...edits].reduce(apply, base));
        verdicts.saved += saved ? 1 : 0;
        verdicts.clean += clean ? 1 : 0;
      }),
      { numRuns: 8 },
    );
    expect(verdicts.saved).toBeGreaterThan(0);
  });
});
