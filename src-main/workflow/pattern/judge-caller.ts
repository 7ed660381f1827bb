import { z } from 'zod';
import { parseJsonText } from '@shared/boundary/parse-candidate';
import type { RunEventPayload } from '@shared/contracts/events';
import { modelLabel, type ChatMessage } from '@shared/contracts/model';
import { OUTPUT_TOKEN_BOUNDS } from '@shared/contracts/output-bound';
import { JudgeVerdict } from '@shared/pattern/contracts';
import type { JudgeAnswer, JudgeInput } from '@shared/pattern/machine';
import { FEEDBACK_HEADING } from '@shared/pattern/prompt';
import type { PrivacyPolicy } from '@shared/policy/privacy';
import type { NodeOf } from '@shared/workflow/document';
import type { CredentialStore } from '../../credentials/credential-store';
import { resolveCredentials } from '../../credentials/resolve-credentials';
import { SecretRegistry } from '../../credentials/secret-registry';
import type { FetchFn } from '../../providers/http-call';
import type { ModelProvider } from '../../providers/provider';
import { modelPlace, recordCalls } from '../../providers/record-calls';
import { ReplayCursor } from './replay-cursor';
import { credentialRefsOf, resolveProvider } from '../../providers/resolve-provider';

/**
 * The `llm` judge of a pattern node: the caller's model profile (a key of the node's judge_models)
 * answers in structured mode, bound to the JudgeVerdict schema. Its reply is handed to the loop
 * as parsed JSON, or as the bare text when it is not JSON — which the verifier refuses: a verdict
 * is never read out of free text. Every call is in the privacy log (model.called).
 */
export interface JudgeDeps {
  privacy?: PrivacyPolicy;
  ollamaHost?: string;
  credentials?: CredentialStore;
  fetch?: FetchFn;
  emit: (payload: RunEventPayload) => void;
  /** The prompt a judgment was sent (recorded with its event: issue 31). */
  onPrompt?: (input: JudgeInput, messages: ChatMessage[]) => void;
}

let verdictSchema: Record<string, unknown> | undefined;
/** The JSON Schema a judge answers in (structured mode): also what a candidate teacher is bound to when past judgments are put to it. */
export const judgeVerdictJsonSchema = (): Record<string, unknown> => (verdictSchema ??= Object.freeze(z.toJSONSchema(JudgeVerdict, { io: 'input' })) as Record<string, unknown>);

/** What the judge is told: its part, the verdict's shape, what it must cite; then the seed's judgment prompt and the outputs by id. */
export function judgeMessages(node: NodeOf<'pattern'>, task: string, input: Pick<JudgeInput, 'prompt' | 'outputs' | 'problem'> & { caller?: JudgeInput['caller'] }): ChatMessage[] {
  const asMember = input.caller?.kind === 'llm' ? input.caller.as_member : undefined;
  const member = asMember === undefined ? undefined : node.members.find((m) => m.id === asMember);
  const { min_citations, must_cite } = node.judgment.verifier;
  const system = [
    member ? `You are the ${member.role} of a ${node.type} pattern, and your review is its judgment. ${member.instructions}` : `You judge the output of a ${node.type} pattern before it may leave.`,
    'Answer with one JSON object and nothing else:',
    '{"verdict":"approved","evidence":[output ids]} when the output does the task;',
    '{"verdict":"rejected","feedback":"what the next iteration must fix","evidence":[output ids]} when it does not;',
    '{"verdict":"escalated","reason":"why a person must decide"} when you cannot judge it.',
    `Evidence is the ids of the member outputs your verdict rests on: at least ${min_citations}${must_cite.length > 0 ? `, including an output of ${must_cite.join(', ')}` : ''}.`,
  ].join('\n');
  const outputs = input.outputs.map((o) => `[${o.id}] (${o.member_id}):\n${o.text}`).join('\n\n');
  const user = [`Task:\n${task}`, input.prompt, `Member outputs (cite by id):\n${outputs}`];
  if (input.problem !== undefined) user.push(`Your previous answer could not be used: ${input.problem}\nAnswer again with the structured verdict.`);
  return [
    { role: 'system', content: system },
    { role: 'user', content: user.join('\n\n') },
  ];
}

/** The judges of one node invocation: a provider per profile, made once (a replay keeps its place in judge_script across callers). */
export function createJudge(node: NodeOf<'pattern'>, task: string, deps: JudgeDeps, replays = new ReplayCursor()): (input: JudgeInput, signal: AbortSignal) => Promise<JudgeAnswer> {
  const providers = new Map<string, Promise<ModelProvider>>();
  const providerOf = (profile: string): Promise<ModelProvider> => {
    const ref = Object.hasOwn(node.judge_models, profile) ? node.judge_models[profile] : undefined;
    if (!ref) return Promise.reject(new Error(`the judge profile "${profile}" names no model in judge_models`));
    if (ref.provider === 'script') {
      if (!node.judge_script) return Promise.reject(new Error('a replay judge needs the node’s judge_script'));
      const replay = replays.provider('judge', node.judge_script, 'teacher');
      return Promise.resolve(recordCalls(replay, modelPlace(ref, deps.ollamaHost), (call) => deps.emit({ type: 'model.called', ...call }), (answer) => deps.emit({ type: 'model.answered', ...answer })));
    }
    let made = providers.get(profile);
    if (!made) {
      made = (async () => {
        const refs = credentialRefsOf(ref);
        if (refs.length > 0 && !deps.credentials) throw new Error('the judge’s API key is a keychain credential, and no credential store is available');
        const apiKeys = refs.length > 0 && deps.credentials ? await resolveCredentials(refs, deps.credentials, new SecretRegistry(), new Map(refs.map((r) => [r, `the API key of the judge model ${ref.model}`]))) : undefined;
        // The privacy policy decides here, on the URL the judge's prompts go to.
        const provider = resolveProvider(ref, 'teacher', { ollamaHost: deps.ollamaHost, privacy: deps.privacy, apiKeys, ...(deps.fetch ? { fetch: deps.fetch } : {}) });
        return recordCalls(provider, modelPlace(ref, deps.ollamaHost), (call) => deps.emit({ type: 'model.called', ...call }), (answer) => deps.emit({ type: 'model.answered', ...answer }));
      })();
      providers.set(profile, made);
    }
    return made;
  };
  return async (input, signal) => {
    const started_at = new Date().toISOString();
    const caller = input.caller;
    if (caller.kind !== 'llm') throw new Error(`a model judge was asked for a ${caller.kind} caller`);
    const provider = await providerOf(caller.profile);
    const data = input.problem !== undefined || input.prompt.includes(FEEDBACK_HEADING) ? (['candidate', 'feedback', 'instructions', 'task'] as const) : (['candidate', 'instructions', 'task'] as const);
    const messages = judgeMessages(node, task, input);
    deps.onPrompt?.(input, messages);
    const reply = await provider.complete({
      role: 'teacher',
      messages,
      format: judgeVerdictJsonSchema(),
      max_output_tokens: OUTPUT_TOKEN_BOUNDS.judge,
      signal,
      call: { caller: 'judge', purpose: 'review', data: [...data] },
    });
    const parsed = parseJsonText(reply.text);
    // The audit: the model behind the profile, as the node names it (a replay script is no model: the profile alone).
    const ref = Object.hasOwn(node.judge_models, caller.profile) ? node.judge_models[caller.profile] : undefined;
    const model = ref && ref.provider !== 'script' ? { model: modelLabel(ref) } : {};
    return { answer: parsed.ok ? parsed.value : reply.text, started_at, ended_at: new Date().toISOString(), caller: { kind: 'llm', profile: caller.profile, ...model } };
  };
}
