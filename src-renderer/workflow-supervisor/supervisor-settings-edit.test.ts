import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { ProviderStatus } from '@shared/contracts/host-api';
import { ModelRef, modelLabel } from '@shared/contracts/model';
import { SupervisorSettings } from '@shared/supervisor/contracts';
import { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { agentCloudModels, costCapProblem, defaultSupervisorModel, isRemoteSupervisor, setBound, setCostCap, setDecisionTimeout, setEnabled, setModel, setPrice, setWhoKind } from './supervisor-settings-edit';
import { supervisedWorkflowDocument } from './testing/supervised-trace';

const ollama = (reachable: boolean): ProviderStatus => ({ ollama: { reachable, models: reachable ? [{ name: 'qwen3:4b' }] : [] } }) as unknown as ProviderStatus;
const CLOUD = ModelRef.parse({ provider: 'openai_compatible', base_url: 'https://api.example.com/v1', model: 'gpt-x' });
const QWEN = ModelRef.parse({ provider: 'ollama', model: 'qwen3:4b' });

describe('editing a workflow’s supervisor settings', () => {
  it('turning supervision on picks a local model: Ollama’s first when it answers, else the replay model', () => {
    expect(setEnabled(undefined, true, ollama(true))).toMatchObject({ enabled: true, who: { kind: 'model', model: { provider: 'ollama', model: 'qwen3:4b' } }, max_decisions: 20, max_retries: 2 });
    expect(setEnabled(undefined, true, undefined).who).toMatchObject({ kind: 'model', model: { provider: 'script' } });
    expect(defaultSupervisorModel(ollama(false))).toEqual({ provider: 'script' });
  });

  it('turning it off keeps what was chosen, so turning it on again gives it back', () => {
    const chosen = setCostCap(setBound(setWhoKind(setEnabled(undefined, true, undefined), 'person', undefined), 'max_decisions', 7), '0.5');
    const off = setEnabled(chosen, false, undefined);
    expect(off).toEqual({ ...chosen, enabled: false });
    expect(setEnabled(off, true, undefined)).toEqual(chosen);
  });

  it('a person or a model: switching to a person drops the model; back to a model picks the local default again', () => {
    const model = setEnabled(undefined, true, ollama(true));
    const person = setWhoKind(model, 'person', ollama(true));
    expect(person.who).toEqual({ kind: 'person' });
    expect(setWhoKind(person, 'model', ollama(true)).who).toMatchObject({ kind: 'model', model: { provider: 'ollama', model: 'qwen3:4b' }, max_output_tokens: 2048, decision_timeout_ms: 60_000 });
  });

  it('a replay script stays with the replay model only', () => {
    const scripted = SupervisorSettings.parse({ enabled: true, who: { kind: 'model', model: { provider: 'script' }, script: { student: [], teacher: [] } } });
    expect(setModel(scripted, QWEN).who).not.toHaveProperty('script');
    expect(setModel(scripted, { provider: 'script' }).who).toHaveProperty('script');
  });

  it('the cost cap: empty is no cap, a non-negative number is the cap, anything else changes nothing', () => {
    const s = setEnabled(undefined, true, undefined);
    fc.assert(
      fc.property(fc.oneof(fc.double({ min: 0, max: 1e6, noNaN: true }).map(String), fc.constantFrom('', '  ', '-1', 'abc', 'NaN', 'Infinity', '1e999')), (text) => {
        const out = setCostCap(setCostCap(s, '3'), text);
        const n = Number(text.trim());
        if (text.trim() === '') expect(out).not.toHaveProperty('cost_cap_usd');
        else if (Number.isFinite(n) && n >= 0) expect(out.cost_cap_usd).toBe(n);
        else expect(out.cost_cap_usd).toBe(3);
        expect(SupervisorSettings.safeParse(out).success).toBe(true);
      }),
    );
  });

  it('bounds outside what the document allows are not taken', () => {
    const s = setEnabled(undefined, true, undefined);
    expect(setBound(s, 'max_decisions', 0)).toBe(s);
    expect(setBound(s, 'max_retries', 11)).toBe(s);
    expect(setBound(s, 'max_retries', 0).max_retries).toBe(0);
  });

  it('the decision timeout: a model’s 1 s to 10 min; a person’s at least a minute, or none (they have until the run is stopped)', () => {
    const model = setEnabled(undefined, true, undefined);
    expect(setDecisionTimeout(model, '90').who).toMatchObject({ decision_timeout_ms: 90_000 });
    for (const bad of ['', '0.5', '601', 'x']) expect(setDecisionTimeout(model, bad)).toBe(model);
    const person = setWhoKind(model, 'person', undefined);
    expect(setDecisionTimeout(person, '30')).toBe(person);
    const hour = setDecisionTimeout(person, '3600');
    expect(hour.who).toEqual({ kind: 'person', decision_timeout_ms: 3_600_000 });
    expect(setDecisionTimeout(hour, ' ').who).toEqual({ kind: 'person' });
  });

  it('an unpriced cloud model with a cap set is said to be refused; a price, no cap, or a local model clears it', () => {
    const cloud = setModel(setEnabled(undefined, true, undefined), CLOUD);
    expect(isRemoteSupervisor(cloud)).toBe(true);
    expect(costCapProblem(cloud)).toBeUndefined();
    const capped = setCostCap(cloud, '1');
    expect(costCapProblem(capped)).toMatch(/no price.*refused.*unsupervised/);
    expect(costCapProblem(setPrice(capped, CLOUD, { input_per_mtok_usd: 1, output_per_mtok_usd: 4 }))).toBeUndefined();
    expect(costCapProblem(setModel(capped, QWEN))).toBeUndefined();
    expect(setPrice(setPrice(capped, CLOUD, { input_per_mtok_usd: 1, output_per_mtok_usd: 4 }), CLOUD, undefined).pricing).toEqual({});
  });

  it("lists the agent nodes' cloud models to price, each once, without local models or the supervisor's own", () => {
    const other = ModelRef.parse({ provider: 'openai_compatible', base_url: 'https://api.other.net/v1', model: 'big' });
    const agent = (id: string, student: ModelRef, teacher: ModelRef) => ({ id, kind: 'agent', instructions: 'x', task: 'y', models: { student, teacher } });
    const g = HostedWorkflowGraph.parse({ ...supervisedWorkflowDocument(), nodes: [agent('a', CLOUD, QWEN), agent('b', CLOUD, other), agent('c', { provider: 'script' }, QWEN)] });
    const local = setEnabled(undefined, true, ollama(true));
    expect(agentCloudModels(g.nodes, local).map(modelLabel)).toEqual(['api.example.com:gpt-x', 'api.other.net:big']);
    expect(agentCloudModels(g.nodes, setModel(local, CLOUD)).map(modelLabel)).toEqual(['api.other.net:big']);
    // Priced here, a failed node's calls of that model count at this price.
    expect(setPrice(local, other, { input_per_mtok_usd: 2, output_per_mtok_usd: 8 }).pricing).toEqual({ 'api.other.net:big': { input_per_mtok_usd: 2, output_per_mtok_usd: 8 } });
  });

  it('the settings round-trip through the workflow document: what the editor saves is what loads back', () => {
    const settings = setPrice(setCostCap(setModel(setEnabled(undefined, true, undefined), CLOUD), '0.25'), CLOUD, { input_per_mtok_usd: 1, output_per_mtok_usd: 4 });
    const doc = HostedWorkflowGraph.parse({ ...supervisedWorkflowDocument(), supervisor: settings });
    expect(HostedWorkflowGraph.parse(JSON.parse(JSON.stringify(doc))).supervisor).toEqual(settings);
  });
});
