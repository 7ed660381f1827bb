/**
 * The consent text of a model supervisor (seed 004, PR 6: "the toggle help text states what failure
 * context is shared and with which model"). Shown wherever supervision by a model is turned on —
 * the app's settings, the CLI once per run on a model that is not local — and in the docs, so the
 * three never drift.
 */

export const SUPERVISOR_SHARED_CONTEXT = [
  'the failed node’s name, its item lineage and attempt',
  'the failure message (secrets and credential-named fields masked, at most 4,000 characters)',
  'the failure’s code, HTTP status or errno',
  'a malformed output the node produced, when there is one (masked, bounded)',
  'what the failed attempt cost and created, and the actions allowed',
  'its own earlier decisions in this run (the last 20: item, action, one-line reason)',
  'on the supervisor’s request: the run’s node statuses, and outputs of nodes in the same item lineage (masked, truncated)',
] as const;

/** `model`: the model's label (`ollama:qwen3:4b`, `api.example.com:gpt-x`); `local`: it runs on this machine. */
export function supervisorConsentText(model: string, local: boolean): string {
  const where = local ? 'which runs on this machine: nothing leaves it' : 'which is not on this machine: this data leaves it, under the workspace privacy policy';
  return [
    `When a node still fails after its own retries, Steward sends the supervisor model ${model} (${where}):`,
    ...SUPERVISOR_SHARED_CONTEXT.map((line) => `  • ${line}`),
    'The model chooses retry, skip, substitute, end_stream or fail from the actions Steward allows; it calls no tool that changes anything.',
  ].join('\n');
}
