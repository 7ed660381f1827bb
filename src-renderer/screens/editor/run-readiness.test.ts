import { describe, expect, it } from 'vitest';
import type { ProviderStatus } from '@shared/contracts/host-api';
import { addNode, replaceNode } from './graph-edit';
import { modelsUsed, workflowProviderProblem as providerProblem } from './run-readiness';
import { newWorkflowDraft } from './workflow-file';

const status = (reachable: boolean, models: string[] = []): ProviderStatus => ({
  script: { available: true, label: 'replay' },
  ollama: { host: 'http://127.0.0.1:11434', reachable, models: models.map((name) => ({ name })) },
});

/** A new workflow with one agent node whose student (and teacher) run on Ollama's qwen3:4b. */
function withOllamaAgent(supervised = true) {
  const added = addNode(newWorkflowDraft([]), 'agent', { x: 0, y: 0 });
  const agent = added.draft.nodes.find((n) => n.id === added.id);
  if (agent?.kind !== 'agent') throw new Error('no agent');
  const qwen = { provider: 'ollama' as const, model: 'qwen3:4b', mode: 'structured' as const, timeout_ms: 120_000 };
  return replaceNode(added.draft, agent.id, { ...agent, name: 'Writer', models: { student: qwen, teacher: qwen }, supervision: { ...agent.supervision, enabled: supervised } });
}

describe('whether the workflow’s models can answer before it starts (issue 28)', () => {
  it('Ollama unreachable: says so, where, which models, and what to do', () => {
    const problem = providerProblem(withOllamaAgent(), status(false));
    expect(problem).toBe(
      'Ollama is not answering at http://127.0.0.1:11434, and this run needs it: qwen3:4b for agent “Writer” (its student and teacher). Start Ollama (ollama serve) and try again, or choose another model in the editor.',
    );
  });

  it('Ollama up without the model: says to pull it; a model listed under :latest is the one named without a tag', () => {
    expect(providerProblem(withOllamaAgent(), status(true, ['llama3:latest']))).toBe(
      'Ollama at http://127.0.0.1:11434 does not have qwen3:4b, which this run needs for agent “Writer” (its student and teacher). Pull it (ollama pull qwen3:4b) and try again, or choose another model in the editor.',
    );
    expect(providerProblem(withOllamaAgent(), status(true, ['qwen3:4b']))).toBeUndefined();
  });

  it('nothing on Ollama, or a status not known yet, never blocks; an unsupervised agent’s teacher is not needed', () => {
    expect(providerProblem(newWorkflowDraft([]), status(false))).toBeUndefined();
    expect(providerProblem(withOllamaAgent(), undefined)).toBeUndefined();
    expect(modelsUsed(withOllamaAgent(false)).map((u) => `${u.node}: ${u.role}`)).toEqual(['agent “Writer”: student']);
  });
});
