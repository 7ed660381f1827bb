import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  type Root,
} from '@modelcontextprotocol/sdk/types.js';
import type { ChatMessage } from '@shared/contracts/model';
import { elicitationFields, type ElicitContent, type ElicitField } from '@shared/policy/elicitation-form';

export const CLIENT_INFO = { name: 'steward', version: '0.1.0' };

/** What Steward's client offers a server beyond calling its tools. */
export interface ClientCapabilityOptions {
  /** The run's workspace folders: what a server is told its roots are (roots/list). */
  roots?: readonly string[];
  /**
   * A person answers a server's elicitation request (never a model). Without it the client does
   * not declare elicitation, so a server does not ask.
   */
  onElicit?: (ask: ElicitationAsk) => Promise<ElicitationReply>;
  /**
   * The run waits durably for a person (issue 30): a 2026-07-28 server's input request pauses its
   * call until the person answers, so the 2026-07-28 client declares elicitation even without `onElicit`.
   */
  elicitsDurably?: boolean;
  /**
   * The run's model answers a server's sampling request (only for a server the workflow lets
   * sample). Without it the client does not declare sampling.
   */
  onSample?: (ask: SamplingAsk) => Promise<SamplingReply>;
}

/** A server asks the run's model: its conversation (text only) and how long an answer it wants. */
export interface SamplingAsk {
  server: string;
  messages: ChatMessage[];
  max_tokens: number;
}

export interface SamplingReply {
  text: string;
  model: string;
}

/** A server asks the person: to fill in a form, or to open a link (only once they agree). */
export type ElicitationAsk =
  | { server: string; mode: 'form'; message: string; fields: ElicitField[] }
  | { server: string; mode: 'url'; message: string; url: string; elicitation_id: string };

/**
 * The person's answer: the form's content (or, for a link, that they opened it), no, or not now.
 * `by: 'defaults'`: nobody could be asked and the form's defaults answered (elicitation-defaults.ts).
 */
export type ElicitationReply = { action: 'accept'; content?: ElicitContent; by?: 'defaults' } | { action: 'decline' } | { action: 'cancel' };

/**
 * The SDK client every connection (stdio or remote) uses, with the capabilities it declares and
 * the requests it answers. Roots: the run's workspace folders, fixed for the run (no listChanged).
 */
export function newMcpClient(options: ClientCapabilityOptions): Client {
  const { onElicit, onSample } = options;
  const client = new Client(CLIENT_INFO, {
    capabilities: { roots: { listChanged: false }, ...(onElicit ? { elicitation: { form: {}, url: {} } } : {}), ...(onSample ? { sampling: {} } : {}) },
  });
  const roots = workspaceRoots(options.roots ?? []);
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
  if (onElicit) client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request, onElicit));
  if (onSample) client.setRequestHandler(CreateMessageRequestSchema, (request) => sample(request, onSample));
  return client;
}

/** A sampling request as both SDKs type it: what Steward reads of it. */
export interface SamplingParams {
  systemPrompt?: string;
  maxTokens: number;
  messages: readonly { role: 'user' | 'assistant'; content: { type: string; text?: string } | readonly { type: string; text?: string }[] }[];
}

/**
 * A sampling request as the conversation Steward samples: text only (an image, audio or tool block
 * is refused as a request Steward cannot take: undefined). One reading for the 2025 and the 2026-07-28 clients.
 */
export function samplingConversation(params: SamplingParams): ChatMessage[] | undefined {
  const messages: ChatMessage[] = params.systemPrompt ? [{ role: 'system', content: params.systemPrompt }] : [];
  for (const message of params.messages) {
    const blocks = Array.isArray(message.content) ? message.content : [message.content];
    const texts = blocks.map((b: { type: string; text?: string }) => (b.type === 'text' ? b.text : undefined));
    if (texts.some((t) => t === undefined)) return undefined;
    messages.push({ role: message.role, content: texts.join('\n') });
  }
  return messages;
}

export const SAMPLES_TEXT_ONLY = 'Steward samples text conversations only';

async function sample(request: CreateMessageRequest, onSample: (ask: SamplingAsk) => Promise<SamplingReply>): Promise<CreateMessageResult> {
  const messages = samplingConversation(request.params);
  if (!messages) throw new McpError(ErrorCode.InvalidRequest, SAMPLES_TEXT_ONLY);
  const reply = await onSample({ server: '', messages, max_tokens: request.params.maxTokens });
  return { role: 'assistant', content: { type: 'text', text: reply.text }, model: reply.model, stopReason: 'endTurn' };
}

/** A form the person cannot be shown (a field of another kind) is declined without asking. The host fills in `server`. */
async function elicit(request: ElicitRequest, onElicit: (ask: ElicitationAsk) => Promise<ElicitationReply>): Promise<ElicitResult> {
  const params = request.params;
  if (params.mode === 'url') {
    return toResult(await onElicit({ server: '', mode: 'url', message: params.message, url: params.url, elicitation_id: params.elicitationId }));
  }
  const form = elicitationFields(params.requestedSchema);
  if (!form.ok) return { action: 'decline' };
  return toResult(await onElicit({ server: '', mode: 'form', message: params.message, fields: form.fields }));
}

/** What the server is told: the action and the content, nothing of Steward's own bookkeeping. */
function toResult(reply: ElicitationReply): ElicitResult {
  return reply.action === 'accept' ? { action: 'accept', ...(reply.content ? { content: reply.content } : {}) } : { action: reply.action };
}

/** Each folder as a file:// root named for its last path segment. */
export function workspaceRoots(folders: readonly string[]): Root[] {
  return folders.map((folder) => ({ uri: pathToFileURL(path.resolve(folder)).href, name: path.basename(path.resolve(folder)) || folder }));
}
