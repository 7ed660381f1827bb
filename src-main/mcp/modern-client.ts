import { randomUUID } from 'node:crypto';
import { Client, ProtocolError, ProtocolErrorCode, type CreateMessageRequest, type CreateMessageResult, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/client';
import { elicitationFields } from '@shared/policy/elicitation-form';
import { setOwn } from '@shared/util/set-own';
import type { ServerInputAsk } from '@shared/contracts/server-input';
import { CLIENT_INFO, SAMPLES_TEXT_ONLY, samplingConversation, workspaceRoots, type ClientCapabilityOptions, type ElicitationAsk, type ElicitationReply, type SamplingAsk, type SamplingReply } from './client-capabilities';

/** The revision the SDK v2 client speaks beside the 2025 ones (server/discover, `_meta` per request, multi round-trip requests). */
export const MODERN_REVISION = '2026-07-28';

/**
 * The SDK v2 client a 2026-07-28 connection uses: pinned to that revision (no fallback here: the
 * caller falls back to the 2025-era connection), with the same answers the 2025 client gives. On
 * this revision a server asks for input by answering a request with `input_required`; the SDK
 * puts each embedded request to the handlers below (a person for a form or a link, the run's model
 * for sampling, the workspace for roots) and retries the request with `inputResponses` and the
 * server's `requestState` echoed untouched.
 */
export function newModernClient(options: ClientCapabilityOptions & { probeTimeoutMs: number; maxInputRounds?: number }): Client {
  const { onElicit, onSample } = options;
  const client = new Client(CLIENT_INFO, {
    capabilities: { roots: { listChanged: false }, ...(onElicit || options.elicitsDurably ? { elicitation: { form: {}, url: {} } } : {}), ...(onSample ? { sampling: {} } : {}) },
    versionNegotiation: { mode: { pin: MODERN_REVISION }, probe: { timeoutMs: options.probeTimeoutMs } },
    inputRequired: { autoFulfill: true, maxRounds: options.maxInputRounds ?? 10 },
    listMaxPages: 50,
  });
  const roots = workspaceRoots(options.roots ?? []);
  client.setRequestHandler('roots/list', () => ({ roots }));
  if (onElicit) client.setRequestHandler('elicitation/create', (request) => elicit(request, onElicit));
  if (onSample) client.setRequestHandler('sampling/createMessage', (request) => sample(request, onSample));
  return client;
}

/** A form the person cannot be shown (a field of another kind) is declined without asking. The host fills in `server`. */
async function elicit(request: ElicitRequest, onElicit: (ask: ElicitationAsk) => Promise<ElicitationReply>): Promise<ElicitResult> {
  const params = request.params;
  if (params.mode === 'url') {
    // 2026-07-28 has no elicitation id (the server correlates through its requestState): one of Steward's own.
    return toResult(await onElicit({ server: '', mode: 'url', message: params.message, url: params.url, elicitation_id: randomUUID() }));
  }
  const form = elicitationFields(params.requestedSchema);
  if (!form.ok) return { action: 'decline' };
  return toResult(await onElicit({ server: '', mode: 'form', message: params.message, fields: form.fields }));
}

function toResult(reply: ElicitationReply): ElicitResult {
  return reply.action === 'accept' ? { action: 'accept', ...(reply.content ? { content: reply.content } : {}) } : { action: reply.action };
}

/** Text conversations only, read as for the 2025 client. */
async function sample(request: CreateMessageRequest, onSample: (ask: SamplingAsk) => Promise<SamplingReply>): Promise<CreateMessageResult> {
  const messages = samplingConversation(request.params);
  if (!messages) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, SAMPLES_TEXT_ONLY);
  const reply = await onSample({ server: '', messages, max_tokens: request.params.maxTokens });
  return { role: 'assistant', content: { type: 'text', text: reply.text }, model: reply.model, stopReason: 'endTurn' };
}

/** An embedded request of an `input_required` result, as the SDK hands it back in manual mode. */
interface EmbeddedRequest {
  method?: unknown;
  params?: unknown;
}

/** What the host answers at once (roots, sampling, a form it cannot show) and what waits for a person. */
export interface SortedInput {
  responses: Record<string, unknown>;
  asks: ServerInputAsk[];
}

/**
 * The embedded requests of one `input_required` answer (issue 30), sorted: the workspace's roots and
 * the run's model (sampling) answer at once, as they do in-process; a form the person cannot be
 * shown is declined without asking; every other elicitation (a form, a link) is a question for the
 * person, kept under the server's key. A request of a kind Steward does not know is refused.
 */
export async function sortInputRequests(requests: Readonly<Record<string, unknown>>, options: ClientCapabilityOptions): Promise<SortedInput> {
  const responses: Record<string, unknown> = {};
  const asks: ServerInputAsk[] = [];
  for (const [key, value] of Object.entries(requests)) {
    const request = (value ?? {}) as EmbeddedRequest;
    switch (request.method) {
      case 'roots/list':
        setOwn(responses, key, { roots: workspaceRoots(options.roots ?? []) });
        break;
      case 'sampling/createMessage': {
        if (!options.onSample) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, 'Steward does not let this server sample the run\'s model');
        const answer = await sample(request as CreateMessageRequest, options.onSample);
        setOwn(responses, key, answer);
        break;
      }
      case 'elicitation/create': {
        const params = (request as ElicitRequest).params;
        if (params.mode === 'url') {
          asks.push({ key, mode: 'url', message: params.message, url: params.url });
          break;
        }
        const form = elicitationFields(params.requestedSchema);
        if (form.ok) asks.push({ key, mode: 'form', message: params.message, fields: form.fields });
        else setOwn(responses, key, { action: 'decline' });
        break;
      }
      default:
        throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `the server asked for input of a kind Steward does not answer (${typeof request.method === 'string' ? request.method.slice(0, 100) : 'no method'})`);
    }
  }
  return { responses, asks };
}

/** A person's (or the defaults') answer as the server reads it under its key. */
export function elicitResultOf(reply: ElicitationReply): ElicitResult {
  return toResult(reply);
}
