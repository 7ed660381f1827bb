import http from 'node:http';
import { DoubleLifecycle } from './double-lifecycle';
import { wordsIn } from './fake-ollama';
import { readJsonRequest } from './http-json';
import { boundOf, padAnswer, promptTokens, type Padding } from './padding-model';
import { resetConnection, writeBody, type WrittenResponse } from './write-body';
import type { AddressInfo } from 'node:net';

/**
 * TEST DOUBLE at the model boundary: a local HTTP server speaking (a small part of) the OpenAI
 * chat-completions API, so the OpenAI-compatible provider can be exercised without a model
 * server or the internet. It is not OpenAI: replies come from the test's `chat` handler.
 *
 * Implemented, under `/v1`: GET /models, POST /chat/completions (non-streaming only; a streaming
 * request gets a 400). With `api_key`, a request without `Authorization: Bearer <api_key>` gets
 * OpenAI's 401 — quoting the key it was sent in full, on purpose: OpenAI masks it, other servers
 * may not, and the provider must never pass it on. With `models`, an unknown model gets OpenAI's
 * 404 `model_not_found`; without, any model is served (as llama.cpp does).
 * Every request is recorded with its Authorization header, so tests can prove where a key went.
 * The output bound is honoured (`max_completion_tokens`, else `max_tokens`): a longer text answer
 * is cut there with finish_reason "length". With `padding` it is the padding model (padding-model.ts).
 */

export interface FakeOpenAIToolCall {
  name: string;
  /** Sent as is when a string (so a test can send broken JSON); anything else is JSON-encoded, as the API does. */
  arguments: unknown;
}

/** The assistant message the fake answers with (what OpenAI puts in `choices[0].message`). */
export interface FakeOpenAIMessage {
  content?: string | null;
  refusal?: string;
  tool_calls?: FakeOpenAIToolCall[];
}

/** What the test's handler sees: the parsed body of one chat-completions request. */
export interface FakeOpenAIChatRequest {
  model: string;
  messages: { role: string; content: unknown }[];
  stream?: boolean;
  response_format?: unknown;
  tools?: unknown[];
  temperature?: number;
  [key: string]: unknown;
}

/**
 * The `usage` the fake reports. Absent: it counts words (the prompt's, the reply's), so every reply
 * carries plausible, distinct numbers; `null`: no `usage` is sent (some local servers send none).
 */
export interface FakeOpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
}

/**
 * A normal reply, a raw HTTP answer (status, JSON body, headers) to simulate failures, or a
 * connection reset before any answer. `delay_ms` holds the answer back.
 */
export type FakeOpenAIResult =
  | { message: FakeOpenAIMessage; finish_reason?: string; delay_ms?: number; usage?: FakeOpenAIUsage | null }
  | { status: number; body: unknown; headers?: Record<string, string>; delay_ms?: number }
  | { reset: true; delay_ms?: number };

export interface FakeOpenAIOptions {
  /** Model ids served; others get a 404. Absent: any model is served. */
  models?: string[];
  /** When set, every request must carry `Authorization: Bearer <api_key>`. */
  api_key?: string;
  /** Answers each chat call; `index` counts chat calls that reached it, from 0. Defaults to a 500 error. */
  chat?: (request: FakeOpenAIChatRequest, index: number) => FakeOpenAIResult | Promise<FakeOpenAIResult>;
  /** Delay before every answer (any endpoint), before a result's own `delay_ms`. */
  latency_ms?: number;
  /** A priced model that pads every text answer up to the request's bound, or `unbounded_tokens` without one, billed by tokens. */
  padding?: Padding;
}

export interface RecordedOpenAIRequest {
  method: string;
  path: string;
  /** The Authorization header as received; undefined when there was none. */
  authorization: string | undefined;
  /** Parsed JSON body; undefined for GET or an unparseable body. */
  body: unknown;
}

export interface FakeOpenAI {
  /** Origin, e.g. http://127.0.0.1:53211 */
  readonly url: string;
  /** What a model ref's `base_url` is set to: `${url}/v1`. */
  readonly baseUrl: string;
  /** Every request received, in arrival order (recorded before any delay). */
  readonly requests: RecordedOpenAIRequest[];
  /** Every answer written, with how much of its body the client took before it ended or left. */
  readonly responses: WrittenResponse[];
  /** The `usage` of every chat completion answered, in order: what the account was billed. */
  readonly billed: FakeOpenAIUsage[];
  /** The bodies of the chat-completions requests so far. */
  chatRequests(): FakeOpenAIChatRequest[];
  /** Resolves once `count` chat requests have arrived (lets a test abort mid-call without sleeping). */
  waitForChat(count?: number): Promise<void>;
  close(): Promise<void>;
}

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  reset?: boolean;
  delay: number;
}

const CHAT_PATH = '/v1/chat/completions';

const apiError = (message: string, type: string, code: string | null, param: string | null = null) => ({ error: { message, type, param, code } });

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const requests: RecordedOpenAIRequest[] = [];
  const responses: WrittenResponse[] = [];
  const billed: FakeOpenAIUsage[] = [];
  const life = new DoubleLifecycle(() => requests.filter((r) => r.path === CHAT_PATH).length);
  const sleep = (ms: number) => life.sleep(ms);
  const notifyChat = () => life.notifyChat();
  let chatIndex = 0;



  function unauthorized(authorization: string | undefined): { status: number; body: unknown } | undefined {
    if (options.api_key === undefined) return undefined;
    if (authorization === `Bearer ${options.api_key}`) return undefined;
    if (authorization === undefined) {
      return { status: 401, body: apiError("You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth.", 'invalid_request_error', null) };
    }
    const sent = authorization.replace(/^Bearer\s+/i, '');
    return { status: 401, body: apiError(`Incorrect API key provided: ${sent}. You can find your API key in your account settings.`, 'invalid_request_error', 'invalid_api_key') };
  }

  async function route(method: string, path: string, authorization: string | undefined, body: unknown): Promise<Answer> {
    const base = options.latency_ms ?? 0;
    const refused = unauthorized(authorization);
    if (refused) return { ...refused, delay: base };
    if (method === 'GET' && path === '/v1/models') {
      const ids = options.models ?? [];
      return { status: 200, delay: base, body: { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake-openai' })) } };
    }
    if (method === 'POST' && path === CHAT_PATH) {
      const request = body as FakeOpenAIChatRequest | undefined;
      if (!request || typeof request.model !== 'string' || !Array.isArray(request.messages)) {
        return { status: 400, delay: base, body: apiError("'model' and 'messages' are required", 'invalid_request_error', null) };
      }
      if (request.stream === true) {
        return { status: 400, delay: base, body: apiError('the fake OpenAI server answers non-streaming requests only', 'invalid_request_error', null, 'stream') };
      }
      if (options.models && !options.models.includes(request.model)) {
        return {
          status: 404,
          delay: base,
          body: apiError(`The model \`${request.model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found'),
        };
      }
      const index = chatIndex++;
      const result: FakeOpenAIResult = options.chat
        ? await options.chat(request, index)
        : { status: 500, body: apiError('the fake OpenAI server has no chat handler', 'server_error', null) };
      const delay = base + (result.delay_ms ?? 0);
      if ('reset' in result) return { status: 0, body: undefined, reset: true, delay };
      if ('status' in result) return { status: result.status, body: result.body, headers: result.headers, delay };
      const bounded = underBound(request, result.message, options.padding);
      const usage = result.usage === undefined ? (bounded.usage ?? wordUsage(request, bounded.message)) : result.usage;
      billed.push(usage ?? {});
      return { status: 200, delay, body: completion(request.model, index, bounded.message, bounded.cut ? 'length' : result.finish_reason, usage) };
    }
    return { status: 404, delay: base, body: apiError(`Unknown request URL: ${method} ${path}.`, 'invalid_request_error', 'unknown_url') };
  }

  const server = http.createServer((req, res) => {
    void readJsonRequest(req).then(({ method, path, body, badJson }) => {
      const authorization = req.headers.authorization;
      requests.push({ method, path, authorization, body });
      if (path === CHAT_PATH) notifyChat();
      const answer: Promise<Answer> = badJson
        ? Promise.resolve({ status: 400, body: apiError('We could not parse the JSON body of your request.', 'invalid_request_error', null), delay: 0 })
        : route(method, path, authorization, body);
      answer
        .then(async (a) => {
          await sleep(a.delay);
          if (res.destroyed || res.writableEnded) return;
          if (a.reset) return resetConnection(res);
          const body = typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
          await writeBody(res, { path, status: a.status, headers: { 'content-type': 'application/json', ...a.headers }, body }, responses);
        })
        .catch((err: unknown) => {
          if (res.destroyed || res.writableEnded) return;
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify(apiError(`fake OpenAI handler failed: ${err instanceof Error ? err.message : String(err)}`, 'server_error', null)));
        });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    baseUrl: `${url}/v1`,
    requests,
    responses,
    billed,
    chatRequests: () => requests.filter((r) => r.path === CHAT_PATH).map((r) => r.body as FakeOpenAIChatRequest),
    waitForChat: (count = 1) => life.waitForChat(count),
    close: () => life.close(server),
  };
}

/** A `chat.completion` object as OpenAI sends it; `content` is null when the model only called tools. */
function completion(model: string, index: number, message: FakeOpenAIMessage, finishReason: string | undefined, usage: FakeOpenAIUsage | null) {
  const toolCalls = message.tool_calls?.map((call, i) => ({
    id: `call_${index}_${i}`,
    type: 'function',
    function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
  }));
  const content = message.content !== undefined ? message.content : toolCalls ? null : '';
  return {
    id: `chatcmpl-fake-${index}`,
    object: 'chat.completion',
    created: 0,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content,
          refusal: message.refusal ?? null,
          ...(toolCalls ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: finishReason ?? (toolCalls ? 'tool_calls' : 'stop'),
      },
    ],
    ...(usage === null ? {} : { usage: { ...usage, total_tokens: (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0) } }),
  };
}

/** A text answer under the request's output bound: cut there, or padded up to it by the padding model (with its billed usage). */
function underBound(request: FakeOpenAIChatRequest, message: FakeOpenAIMessage, padding: Padding | undefined): { message: FakeOpenAIMessage; cut: boolean; usage?: FakeOpenAIUsage } {
  if (typeof message.content !== 'string') return { message, cut: false };
  const bound = boundOf(request.max_completion_tokens, request.max_tokens);
  const answer = padAnswer(message.content, bound, padding);
  const usage = padding ? { prompt_tokens: promptTokens(request.messages, request.response_format), completion_tokens: answer.output_tokens } : undefined;
  return { message: { ...message, content: answer.content }, cut: answer.cut, ...(usage ? { usage } : {}) };
}

/** The fake's stand-in for a tokenizer: words of the prompt and of the reply (tool calls as their JSON). */
function wordUsage(request: FakeOpenAIChatRequest, message: FakeOpenAIMessage): FakeOpenAIUsage {
  return {
    prompt_tokens: wordsIn(request.messages),
    completion_tokens: wordsIn([{ content: message.content ?? message.refusal, tool_calls: message.tool_calls }]),
  };
}
