import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { SupervisorSettings } from '@shared/supervisor/contracts';
import { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { HostProvider } from '../app/HostProvider';
import { createHostClient } from '../host/host-client';
import { StewardDb } from '../db/db';
import { FakeTransport } from '../testing/fake-transport';
import { SupervisorSettingsSection } from './SupervisorSettingsSection';
import { supervisedWorkflowDocument } from './testing/supervised-trace';

const CLOUD = { provider: 'openai_compatible', base_url: 'https://api.example.com/v1', model: 'gpt-x' };

function paint(settings: SupervisorSettings, models: { student: unknown; teacher: unknown }): string {
  const g = HostedWorkflowGraph.parse({ ...supervisedWorkflowDocument(), nodes: [{ id: 'agent', kind: 'agent', instructions: 'x', task: 'y', models }], edges: [] });
  const db = new StewardDb(`steward-supervisor-settings-${Math.random().toString(36).slice(2)}`);
  return renderToStaticMarkup(
    <HostProvider client={createHostClient(new FakeTransport())} db={db} tokenMissing={false}>
      <SupervisorSettingsSection value={settings} nodes={g.nodes} onChange={() => undefined} />
    </HostProvider>,
  );
}

describe('the Supervisor section of a workflow', () => {
  it("offers a price for each agent node's cloud model, filled from the pricing table; none for a local model", () => {
    const settings = SupervisorSettings.parse({ enabled: true, pricing: { 'api.example.com:gpt-x': { input_per_mtok_usd: 2, output_per_mtok_usd: 8 } } });
    const html = paint(settings, { student: CLOUD, teacher: { provider: 'script' } });
    expect(html).toContain('Price of api.example.com:gpt-x (US$ per million tokens)');
    expect(html).toMatch(/value="8"[^>]*data-testid="node-model-price-output"|data-testid="node-model-price-output"[^>]*value="8"/);
    expect(html).toContain('the supervisor never retries it');
    expect(paint(settings, { student: { provider: 'script' }, teacher: { provider: 'script' } })).not.toContain('node-model-price');
  });
});
