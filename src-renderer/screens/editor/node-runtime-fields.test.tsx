import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { LimitsSpec } from '@shared/contracts/spec';
import { SynthesisSettings } from '@shared/contracts/synthesis';
import type { WorkflowNode } from '@shared/workflow/document';
import { HostProvider } from '../../app/HostProvider';
import { StewardDb } from '../../db/db';
import { createHostClient } from '../../host/host-client';
import { FakeTransport } from '../../testing/fake-transport';
import { runtimeTextsOf, typeRuntimeField } from '../../supervision/runtime-edit';
import { addNode } from './graph-edit';
import { Inspector } from './Inspector';
import { newWorkflowDraft } from './workflow-file';

/** The agent node's inspector with the given limits, rendered as the editor shows it. */
function agentInspector(limits: Record<string, unknown>, synthesis?: SynthesisSettings): string {
  const added = addNode(newWorkflowDraft([]), 'agent', { x: 0, y: 0 });
  const found = added.draft.nodes.find((n) => n.id === added.id);
  if (found?.kind !== 'agent') throw new Error('the agent was added');
  const node: WorkflowNode = { ...found, limits: LimitsSpec.parse(limits), ...(synthesis ? { synthesis } : {}) };
  return renderToStaticMarkup(
    <HostProvider client={createHostClient(new FakeTransport())} db={new StewardDb('node-runtime-fields')} tokenMissing={false}>
      <Inspector node={node} draft={{ ...added.draft, nodes: added.draft.nodes.map((n) => (n.id === node.id ? node : n)) }} tools={{ byServer: {}, inspect: () => undefined }} problems={[]} onChange={() => undefined} onRemove={() => undefined} />
    </HostProvider>,
  );
}

const valueOf = (html: string, testId: string) => new RegExp(`<input[^>]*data-testid="${testId}"[^>]*value="([^"]*)"`).exec(html)?.[1];

describe("the graph editor's agent inspector: the Runtime fields of the agent panel", () => {
  it('shows the round limit, the decision timeout in seconds and the reply bound, with the panel’s labels and hints', () => {
    const html = agentInspector({ max_rounds: 7, decision_timeout_ms: 30_000, max_output_tokens: 1024 });
    expect(html).toContain('data-testid="inspector-runtime"');
    expect(valueOf(html, 'inspector-max-rounds')).toBe('7');
    expect(valueOf(html, 'inspector-decision-timeout')).toBe('30');
    expect(valueOf(html, 'inspector-max-output-tokens')).toBe('1024');
    for (const label of ['Round limit', 'Decision timeout', 'Model reply bound']) expect(html).toContain(`>${label}</label>`);
  });

  it('unset limits read as empty fields; the reply bound’s placeholder fits the narrow inspector and its hint says Steward’s own bounds', () => {
    const html = agentInspector({});
    expect(valueOf(html, 'inspector-decision-timeout')).toBe('');
    expect(html).toMatch(/placeholder="default"[^>]*data-testid="inspector-max-output-tokens"/);
    expect(html).toContain('Empty: 8,192 for a proposal, 4,096 for a review.');
  });

  it('a typed value goes into the node when the schema accepts it; one it refuses changes nothing and says why in words', () => {
    const base = LimitsSpec.parse({ max_rounds: 12 });
    const texts = runtimeTextsOf(base);
    expect(typeRuntimeField(texts, 'decision_timeout_s', '30', base).limits).toEqual({ ...base, decision_timeout_ms: 30_000 });
    expect(typeRuntimeField(texts, 'max_output_tokens', '', base).limits).toEqual(base);
    const refused = typeRuntimeField(texts, 'decision_timeout_s', '900', base);
    expect(refused).toEqual({ texts: { ...texts, decision_timeout_s: '900' } });
    expect(typeRuntimeField(texts, 'max_rounds', 'ten', base).limits).toBeUndefined();
  });
});

describe("the graph editor's agent inspector: the Synthesis fields of the agent panel", () => {
  it('off by default: the fields are there, the voice, rate and kinds disabled until speech is on', () => {
    const html = agentInspector({});
    expect(html).toContain('data-testid="inspector-synthesis"');
    expect(html).toContain('Speech off.');
    expect(html).toMatch(/<select[^>]*disabled=""[^>]*data-testid="inspector-synthesis-voice"/);
    expect(html).toMatch(/<input[^>]*disabled=""[^>]*data-testid="inspector-synthesis-speak-complete"/);
  });

  it('a node’s stored speech shows as set: on, its rate, the kinds it speaks; the kinds are one labelled group', () => {
    const html = agentInspector({}, SynthesisSettings.parse({ enabled: true, rate: 1.5, speak: ['complete'] }));
    expect(html).toContain('Speech on · 1.5× · default voice · the final answer.');
    expect(valueOf(html, 'inspector-synthesis-rate')).toBe('1.5');
    const checkbox = (kind: string) => new RegExp(`<input[^>]*data-testid="inspector-synthesis-speak-${kind}"[^>]*>`).exec(html)?.[0] ?? '';
    expect(checkbox('complete')).toContain('checked=""');
    expect(checkbox('ask_user')).not.toContain('checked');
    expect(checkbox('ask_user')).not.toContain('disabled');
    expect(html).toMatch(/role="group" aria-labelledby="[^"]*-synthesis-speak-label"/);
  });
});

