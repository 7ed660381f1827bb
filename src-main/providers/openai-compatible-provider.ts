import { z } from 'zod';
import { credentialNameOf } from '@shared/contracts/credentials';
import { DEFAULT_MAX_REPLY_BYTES, modelLabel, type ModelRef, type ModelReply, type ModelRole } from '@shared/contracts/model';
import type { OfferedTool } from '@shared/contracts/tool-snapshot';
import {
  formatMs,
  isTransientNetworkFailure,
  NetworkFailure,
  networkCode,
  ReplyTooLarge,
  replyTooLargeMessage,
  startHttpCall,
  type FetchFn,
  type HttpCall,
} from './http-call';
import { endpointOrThrow, type ModelEndpoint } from './endpoint';
import { openAIErrorMessage, redactSecrets, removeKey } from './openai-errors';
import { ProviderError, type ChatMessage, type ModelProvider, type ModelRequest } from './provider';
import { retryAfterMs } from './retry';
import { startStopwatch, usageOf } from './call-usage';
import { outputBoundField, outputFieldHint, type OutputBoundField } from './openai-output-field';
import { cutAtBound } from './output-limit';

export type OpenAICompatibleRef = Extract<ModelRef, { provider: 'openai_compatible' }>;

export interface OpenAICompatibleProviderOptions {
  /**
   * The value of `ref.api_key`, already read from the OS keychain by the host. Sent as
   * `Authorization: Bearer …` to `ref.base_url` only; without it no Authorization header is sent.
   */
  apiKey?: string;
  /** Used for every request (tests pass one to observe; defaults to the global fetch). */
  fetch?: FetchFn;
  /** Where requests go, already checked against the privacy policy (resolveProvider); parsed here when absent. */
  endpoint?: ModelEndpoint;
}

/**
 * The chat-completions answer as far as we use it, checked on arrival: it crosses a process
 * boundary. Tool-call `arguments` arrive as a JSON string in this API (some servers send an object).
 */
const ChatCompletion = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          refusal: z.string().nullish(),
          tool_calls: z
            .array(z.object({ function: z.object({ name: z.string().min(1), arguments: z.unknown() }) }))
            .nullish(),
        }),
        // "length": the server stopped at the request's max_*_tokens (output-limit.ts).
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  // Read loosely: absent on some servers, and a count they got wrong must not fail the call.
  usage: z.unknown().optional(),
});

/**
 * A model behind any server speaking the OpenAI chat-completions API (a cloud service, llama.cpp,
 * LM Studio, vLLM…), over plain `fetch`, non-streaming. Structured mode sends the request's JSON
 * Schema as `response_format` and never offers native tools (the prompt lists them). Tools mode
 * offers the round's tools natively and leaves the reply free; a request without tools (the
 * teacher's) still gets its `response_format`. Mirrors the Ollama provider, so a spec can switch.
 *
 * The API key lives only in this closure: it is sent to `base_url` alone (redirects are not
 * followed) and is scrubbed from anything a server says back before it reaches a message.
 */
export function createOpenAICompatibleProvider(
  ref: OpenAICompatibleRef,
  role: ModelRole,
  options: OpenAICompatibleProviderOptions = {},
): ModelProvider {
  const label = modelLabel(ref);
  // Every request goes to the URL the privacy check read its host from.
  const target = options.endpoint ?? endpointOrThrow(ref, role);
  const endpoint = chatCompletionsUrl(target.href);
  const where = displayBaseUrl(target.href);
  const boundField = outputBoundField(ref, new URL(target.href).hostname);
  const apiKey = checkedApiKey(ref, role, options.apiKey);
  const cancelled = (): ProviderError => new ProviderError('cancelled', `the ${role} model call was cancelled`);

  return {
    label,
    async complete(request: ModelRequest): Promise<ModelReply> {
      const maxReplyBytes = ref.max_reply_bytes ?? DEFAULT_MAX_REPLY_BYTES;
      const call = startHttpCall({ fetch: options.fetch, signal: request.signal, timeoutMs: ref.timeout_ms, maxReplyBytes });
      const elapsed = startStopwatch();
      try {
        if (call.stopped() === 'cancelled') throw cancelled();
        const response = await call.fetch(endpoint, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            ...(apiKey !== undefined ? { authorization: `Bearer ${apiKey}` } : {}),
          },
          body: JSON.stringify(requestBody(ref, request, boundField)),
          // A redirect would carry the key and the prompt to an address the privacy policy never saw: refuse it, say so.
          redirect: 'manual',
        });
        const text = await response.text();
        if (response.status < 200 || response.status > 299) throw httpFailure(response, text);
        const json = parseJson(text);
        if (json === NOT_JSON) {
          const type = response.headers.get('content-type') ?? 'no content type';
          throw new ProviderError(
            'bad_response',
            `${where} answered with something that is not JSON (${type}) — is base_url an OpenAI-compatible API (it usually ends in /v1)?`,
          );
        }
        const answer = ChatCompletion.safeParse(json);
        if (!answer.success) {
          const issues = answer.error.issues.map((i) => `${i.path.join('.') || 'reply'}: ${i.message}`).join('; ');
          throw new ProviderError('bad_response', `the reply from ${label} had an unexpected shape (${issues})`);
        }
        const reply = toReply(answer.data, label);
        const cut = cutAtBound(label, request, answer.data.choices[0]?.finish_reason, reply.usage);
        if (cut) throw cut;
        return { ...reply, latency_ms: elapsed() };
      } catch (err) {
        throw toProviderError(err, call);
      } finally {
        call.dispose();
      }
    },
  };

  function httpFailure(response: Response, body: string): ProviderError {
    const status = response.status;
    const said = redactSecrets(openAIErrorMessage(body), apiKey);
    const saidSuffix = said === '' ? '' : `: ${said}`;
    if (status >= 300 && status < 400) {
      const location = response.headers.get('location');
      const to = location === null ? '' : ` to ${displayBaseUrl(resolveUrl(location, endpoint))}`;
      return new ProviderError(
        'bad_response',
        `${where} redirected the request${to} (HTTP ${status}) — set base_url to the final address (Steward does not follow redirects: they would take the prompt, and the API key, to an address nobody allowed)`,
      );
    }
    if (status === 401 || status === 403) return unauthorized(status);
    if (status === 404) {
      if (isModelMissing(body)) {
        return new ProviderError('model_missing', `model "${ref.model}" is not available at ${where} — check the model id (${where}/models lists what the server offers)`);
      }
      return new ProviderError('bad_response', `${where}/chat/completions does not exist (HTTP 404) — check base_url (OpenAI-compatible servers usually end it in /v1)`);
    }
    if (isModelMissing(body)) {
      return new ProviderError('model_missing', `model "${ref.model}" is not available at ${where} (HTTP ${status})${saidSuffix}`);
    }
    const retry = response.headers.get('retry-after');
    if (status === 429) {
      const after = retry !== null && /^\d+$/.test(retry.trim()) ? `, retry after ${retry.trim()} s` : '';
      return new ProviderError(
        'rate_limited',
        `${label} is rate limited (HTTP 429${after})${saidSuffix} — wait and run again, or check the account's quota`,
        retryAfterMs(retry, Date.now()),
      );
    }
    if (status >= 500) return new ProviderError('server_error', `${where} answered ${status}${saidSuffix}`, retryAfterMs(retry, Date.now()));
    return new ProviderError('bad_response', `${where} answered ${status}${saidSuffix}${modeHint(status, said)}`);
  }

  /** Never echoes what the server said: some servers repeat the key they were given. */
  function unauthorized(status: number): ProviderError {
    if (ref.api_key === undefined) {
      return new ProviderError(
        'unauthorized',
        `${where} wants an API key (HTTP ${status}) — store it with \`steward credentials set NAME\` and set the model's api_key to "keychain:NAME"`,
      );
    }
    const name = credentialNameOf(ref.api_key);
    const what = status === 401 ? 'refused the API key' : 'refused access with the API key';
    return new ProviderError(
      'unauthorized',
      `${where} ${what} (${ref.api_key}, HTTP ${status}) — update it with \`steward credentials set ${name}\`${status === 403 ? ', or check that the key may use this model' : ''}`,
    );
  }

  /** A 400 about the feature the mode relies on says which mode to try instead. */
  function modeHint(status: number, said: string): string {
    if (status !== 400 && status !== 422) return '';
    const field = outputFieldHint(said, boundField);
    if (field !== '') return field;
    if (ref.mode === 'structured' && /response_format|json_schema/i.test(said)) {
      return ' — this server may not support JSON-schema output: try mode "tools"';
    }
    if (ref.mode === 'tools' && /\btools?\b|function/i.test(said)) return ' — this model may not support tool calling: set its mode to "structured"';
    return '';
  }

  function toProviderError(err: unknown, call: HttpCall): ProviderError {
    // Every message leaves without the key, whatever went into it.
    if (err instanceof ProviderError) return new ProviderError(err.code, removeKey(err.message, apiKey), err.retryAfterMs, err.usage);
    // Checked before the rest: an abort surfaces as whatever fetch was doing when it happened.
    const stopped = call.stopped();
    if (stopped === 'cancelled') return cancelled();
    if (stopped === 'too_large' || err instanceof ReplyTooLarge) {
      return new ProviderError('reply_too_large', replyTooLargeMessage(label, ref.max_reply_bytes ?? DEFAULT_MAX_REPLY_BYTES));
    }
    if (stopped === 'timeout') {
      return new ProviderError('timeout', `${label} did not answer within ${formatMs(ref.timeout_ms)} — raise timeout_ms, or pick a faster model`);
    }
    if (isTransientNetworkFailure(err)) {
      return new ProviderError('connection_lost', redactSecrets(`the connection to ${where} was lost during the call (${networkCode(err) ?? 'reset'})`, apiKey));
    }
    if (err instanceof NetworkFailure) {
      const code = networkCode(err.cause);
      const dns = code === 'ENOTFOUND' || code === 'EAI_AGAIN';
      return new ProviderError(
        'unreachable',
        `the ${role} model ${label} is not reachable at ${where}${code ? ` (${code})` : ''} — ${dns ? 'check the address in base_url and the network' : 'is the server running?'}`,
      );
    }
    const message = err instanceof Error ? err.message : String(err);
    return new ProviderError('bad_response', redactSecrets(`the connection to ${where} failed while reading the reply: ${message}`, apiKey));
  }
}

/** `${base_url}/chat/completions`, whatever the trailing slashes; a query string (e.g. an api-version) is kept. */
export function chatCompletionsUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
  return url.href;
}

/** The address as shown in messages: no user info, query or trailing slash (they may hold secrets). */
export function displayBaseUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return '(an invalid address)';
  }
}

/**
 * The key as it can go into a header. A stored key with a line break (or anything else a header
 * cannot carry) would make fetch throw an error that quotes it; fail here instead, naming the
 * reference only. Surrounding whitespace (a pasted newline) is dropped.
 */
function checkedApiKey(ref: OpenAICompatibleRef, role: ModelRole, apiKey: string | undefined): string | undefined {
  const where = ref.api_key ?? 'the API key';
  if (apiKey === undefined || apiKey.trim() === '') {
    if (ref.api_key === undefined) return undefined;
    throw new ProviderError(
      'credential_missing',
      `the ${role} model ${modelLabel(ref)} needs the credential ${ref.api_key}, which was not found — store it with \`steward credentials set ${credentialNameOf(ref.api_key)}\` (or in Settings → Credentials)`,
    );
  }
  const key = apiKey.trim();
  if (!/^[\x21-\x7e]+$/.test(key)) {
    throw new ProviderError('credential_missing', `${where} contains characters an HTTP header cannot carry (a line break or a space?) — set it again`);
  }
  return key;
}

function requestBody(ref: OpenAICompatibleRef, request: ModelRequest, boundField: OutputBoundField): Record<string, unknown> {
  const nativeTools = ref.mode === 'tools' && request.tools !== undefined && request.tools.length > 0;
  return {
    model: ref.model,
    messages: toOpenAIMessages(request.messages),
    stream: false,
    ...(nativeTools && request.tools
      ? // One tool call per round (the boundary rejects more anyway): ask the server not to batch.
        { tools: request.tools.map(toOpenAITool), parallel_tool_calls: false }
      : {}),
    ...(!nativeTools && request.format
      ? {
          response_format: {
            type: 'json_schema',
            // strict: false — OpenAI's strict mode cannot express every schema the boundary checks.
            json_schema: { name: request.role === 'teacher' ? 'verdict' : 'decision', schema: request.format, strict: false },
          },
        }
      : {}),
    ...(ref.temperature !== undefined ? { temperature: ref.temperature } : {}),
    ...(request.max_output_tokens !== undefined ? { [boundField]: request.max_output_tokens } : {}),
  };
}

/**
 * In this API a `tool` message must answer a native `tool_calls` entry by its id, which our
 * history does not have (a committed decision is replayed as JSON text): a tool result is sent as
 * the user's turn instead, saying what it is. Turns of one role in a row (a tool result, then the
 * repair feedback) are joined, since some local servers' chat templates insist roles alternate.
 */
export function toOpenAIMessages(messages: readonly ChatMessage[]): { role: 'system' | 'user' | 'assistant'; content: string }[] {
  const out: { role: 'system' | 'user' | 'assistant'; content: string }[] = [];
  for (const m of messages) {
    const turn = m.role === 'tool' ? { role: 'user' as const, content: `Tool result:\n${m.content}` } : { role: m.role, content: m.content };
    const last = out[out.length - 1];
    if (last && last.role === turn.role && turn.role !== 'system') last.content = `${last.content}\n\n${turn.content}`;
    else out.push(turn);
  }
  return out;
}

function toOpenAITool(tool: OfferedTool): Record<string, unknown> {
  // The snapshotted schema, as is: it is what the boundary validates the arguments against.
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.input_schema } };
}

function toReply(answer: z.infer<typeof ChatCompletion>, label: string): ModelReply {
  const message = answer.choices[0]?.message;
  const content = message?.content ?? '';
  // A refusal is the model's answer too: the boundary reports it as an unusable decision.
  const text = content === '' && message?.refusal ? message.refusal : content;
  const reported = typeof answer.usage === 'object' && answer.usage !== null ? (answer.usage as Record<string, unknown>) : {};
  const usage = usageOf(reported.prompt_tokens, reported.completion_tokens);
  return {
    text,
    tool_calls: (message?.tool_calls ?? []).map((c) => ({ name: c.function.name, arguments: parseArguments(c.function.arguments) })),
    model: label,
    ...(usage ? { usage } : {}),
  };
}

/** Arguments are a JSON string here. Unreadable ones stay the raw string, so the boundary's validation reports them. */
function parseArguments(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function resolveUrl(location: string, base: string): string {
  try {
    return new URL(location, base).href;
  } catch {
    return location;
  }
}

const NOT_JSON = Symbol('not JSON');

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

function isModelMissing(body: string): boolean {
  const parsed = parseJson(body);
  const error = typeof parsed === 'object' && parsed !== null ? (parsed as { error?: unknown }).error : undefined;
  if (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'model_not_found') return true;
  const said = openAIErrorMessage(body);
  return /\bmodel\b/i.test(said) && /not found|does not exist|not exist|unknown model|no such model/i.test(said);
}
