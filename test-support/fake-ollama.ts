import http from 'node:http';
import { DoubleLifecycle } from './double-lifecycle';
import { readJsonRequest } from './http-json';
import { boundOf, padAnswer, promptTokens, type Padding } from './padding-model';
import { resetConnection, writeBody, type WrittenResponse } from './write-body';
import type { AddressInfo } from 'node:net';

/**
 * TEST DOUBLE at the model boundary: a local HTTP server speaking (a small part of) the Ollama
 * REST API, so the real `ollama` npm client and the Ollama provider can be exercised without a
 * model server. It is not Ollama: replies come from the test's `chat` handler.
 *
 * Implemented: GET /api/version, GET /api/tags, POST /api/show, POST /api/chat (non-streaming when
 * the request says `stream: false`, newline-delimited JSON otherwise, as Ollama defaults to).
 * Unknown models get Ollama's own 404 (`model "x" not found, try pulling it first`).
 * The output bound `options.num_predict` is honoured: a longer text answer is cut there with
 * done_reason "length". With `padding` it is the padding model (padding-model.ts).
 */

export interface FakeOllamaModel {
  name: string;
  family?: string;
  parameter_size?: string;
  size?: number;
  /** What `/api/show` reports, e.g. ['completion', 'tools', 'thinking']. */
  capabilities?: string[];
}

export interface FakeToolCall {
  function: { name: string; arguments: unknown };
}

/** The assistant message the fake answers with (what Ollama puts in `message`). */
export interface FakeChatMessage {
  content?: string;
  thinking?: string;
  tool_calls?: FakeToolCall[];
}

/**
 * The token counts Ollama reports with a reply. Absent: the fake counts words (the prompt's, the
 * reply's), so every reply carries plausible, distinct numbers; `null`: none are sent (as Ollama
 * omits `prompt_eval_count` when the whole prompt was cached).
 */
export interface FakeEvalCounts {
  prompt_eval_count?: number;
  eval_count?: number;
}

/** What the test's handler sees: the parsed body of one `/api/chat` request. */
export interface FakeChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  stream?: boolean;
  format?: unknown;
  tools?: unknown[];
  options?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * A normal reply, a raw HTTP answer (status, JSON body, headers such as Retry-After) to simulate
 * failures, or a connection reset before any answer. `delay_ms` holds the answer back.
 */
export type FakeChatResult =
  | { message: FakeChatMessage; delay_ms?: number; counts?: FakeEvalCounts | null }
  | { status: number; body: unknown; headers?: Record<string, string>; delay_ms?: number }
  | { reset: true; delay_ms?: number };

export interface FakeOllamaOptions {
  models?: FakeOllamaModel[];
  version?: string;
  /** Answers each chat call; `index` counts chat calls from 0. Defaults to a 500 error. */
  chat?: (request: FakeChatRequest, index: number) => FakeChatResult | Promise<FakeChatResult>;
  /** Delay before every answer (any endpoint), before a result's own `delay_ms`. */
  latency_ms?: number;
  /** A model that pads every text answer up to `num_predict`, or `unbounded_tokens` without one, counted by tokens. */
  padding?: Padding;
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** Parsed JSON body; undefined for GET or an unparseable body. */
  body: unknown;
}

export interface FakeOllama {
  /** Base URL, e.g. http://127.0.0.1:53211 */
  readonly url: string;
  /** Every request received, in arrival order (recorded before any delay). */
  readonly requests: RecordedRequest[];
  /** Every answer written, with how much of its body the client took before it ended or left. */
  readonly responses: WrittenResponse[];
  /** The token counts of every chat answer, in order. */
  readonly billed: FakeEvalCounts[];
  /** The bodies of the `/api/chat` requests so far. */
  chatRequests(): FakeChatRequest[];
  /** Resolves once `count` chat requests have arrived (lets a test abort mid-call without sleeping). */
  waitForChat(count?: number): Promise<void>;
  close(): Promise<void>;
}

const NOT_FOUND = (model: string): { error: string } => ({ error: `model "${model}" not found, try pulling it first` });

/** What the fake answers to one request: a JSON body, NDJSON lines, or a reset connection. */
type FakeAnswer = { status: number; body: unknown; ndjson?: unknown[]; headers?: Record<string, string>; reset?: boolean; delay: number };

export async function startFakeOllama(options: FakeOllamaOptions = {}): Promise<FakeOllama> {
  const models = options.models ?? [];
  const requests: RecordedRequest[] = [];
  const responses: WrittenResponse[] = [];
  const billed: FakeEvalCounts[] = [];
  const life = new DoubleLifecycle(() => requests.filter((r) => r.path === '/api/chat').length);
  const sleep = (ms: number) => life.sleep(ms);
  const notifyChat = () => life.notifyChat();
  let chatIndex = 0;

  const findModel = (name: unknown): FakeOllamaModel | undefined =>
    typeof name === 'string' ? models.find((m) => m.name === name || m.name === `${name}:latest`) : undefined;


  const details = (m: FakeOllamaModel) => ({
    parent_model: '',
    format: 'gguf',
    family: m.family ?? 'unknown',
    families: [m.family ?? 'unknown'],
    parameter_size: m.parameter_size ?? '',
    quantization_level: 'Q4_K_M',
  });


  async function route(
    method: string,
    path: string,
    body: unknown,
  ): Promise<FakeAnswer> {
    const base = options.latency_ms ?? 0;
    if (method === 'GET' && path === '/api/version') return { status: 200, body: { version: options.version ?? '0.12.6' }, delay: base };
    if (method === 'GET' && path === '/api/tags') {
      return {
        status: 200,
        delay: base,
        body: {
          models: models.map((m) => ({
            name: m.name,
            model: m.name,
            modified_at: '2026-01-01T00:00:00Z',
            size: m.size ?? 0,
            digest: 'sha256:fake',
            details: details(m),
          })),
        },
      };
    }
    if (method === 'POST' && path === '/api/show') {
      const name = (body as { model?: unknown } | undefined)?.model;
      const m = findModel(name);
      if (!m) return { status: 404, body: NOT_FOUND(String(name)), delay: base };
      return {
        status: 200,
        delay: base,
        body: {
          license: '',
          modelfile: '',
          parameters: '',
          template: '',
          details: details(m),
          model_info: {},
          capabilities: m.capabilities ?? ['completion'],
          modified_at: '2026-01-01T00:00:00Z',
        },
      };
    }
    if (method === 'POST' && path === '/api/chat') {
      const request = body as FakeChatRequest | undefined;
      if (!request || typeof request.model !== 'string' || !Array.isArray(request.messages)) {
        return { status: 400, body: { error: 'invalid chat request' }, delay: base };
      }
      if (!findModel(request.model)) return { status: 404, body: NOT_FOUND(request.model), delay: base };
      const index = chatIndex++;
      const result: FakeChatResult = options.chat
        ? await options.chat(request, index)
        : { status: 500, body: { error: 'the fake Ollama has no chat handler' } };
      const delay = base + (result.delay_ms ?? 0);
      if ('reset' in result) return { status: 0, body: undefined, reset: true, delay };
      if ('status' in result) return { status: result.status, body: result.body, headers: result.headers, delay };
      const answer = padAnswer(result.message.content ?? '', boundOf(request.options?.num_predict), options.padding);
      const message = { role: 'assistant', ...strip(result.message), content: answer.content };
      const counts = options.padding
        ? { prompt_eval_count: promptTokens(request.messages, request.format), eval_count: answer.output_tokens }
        : { prompt_eval_count: wordsIn(request.messages), eval_count: wordsIn([message]) };
      billed.push(result.counts === null ? {} : (result.counts ?? counts));
      const final = {
        model: request.model,
        created_at: new Date(0).toISOString(),
        message,
        done: true,
        done_reason: answer.cut ? 'length' : 'stop',
        total_duration: 1,
        load_duration: 0,
        prompt_eval_duration: 1,
        eval_duration: 1,
        ...(result.counts === null ? {} : (result.counts ?? counts)),
      };
      if (request.stream === false) return { status: 200, body: final, delay };
      // Ollama streams unless told otherwise: one chunk with the message, then the done marker.
      return {
        status: 200,
        body: undefined,
        delay,
        ndjson: [
          { model: request.model, created_at: final.created_at, message, done: false },
          { ...final, message: { role: 'assistant', content: '' } },
        ],
      };
    }
    return { status: 404, body: { error: `${method} ${path}: not implemented by the fake Ollama` }, delay: base };
  }

  const server = http.createServer((req, res) => {
    void readJsonRequest(req).then(({ method, path, body, badJson }) => {
      requests.push({ method, path, body });
      if (path === '/api/chat') notifyChat();
      const answer = badJson
        ? Promise.resolve<FakeAnswer>({ status: 400, body: { error: 'invalid JSON body' }, delay: 0 })
        : route(method, path, body);
      answer
        .then(async (a) => {
          await sleep(a.delay);
          if (res.destroyed || res.writableEnded) return;
          if (a.reset) return resetConnection(res);
          if (a.ndjson) {
            const text = a.ndjson.map((line) => JSON.stringify(line)).join('\n') + '\n';
            await writeBody(res, { path, status: a.status, headers: { 'content-type': 'application/x-ndjson' }, body: text }, responses);
          } else {
            const headers = { 'content-type': 'application/json; charset=utf-8', ...a.headers };
            await writeBody(res, { path, status: a.status, headers, body: JSON.stringify(a.body) }, responses);
          }
        })
        .catch((err: unknown) => {
          if (res.destroyed || res.writableEnded) return;
          res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
          res.end(JSON.stringify({ error: `fake Ollama handler failed: ${err instanceof Error ? err.message : String(err)}` }));
        });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    responses,
    billed,
    chatRequests: () => requests.filter((r) => r.path === '/api/chat').map((r) => r.body as FakeChatRequest),
    waitForChat: (count = 1) => life.waitForChat(count),
    close: () => life.close(server),
  };
}

/** The fake's stand-in for a tokenizer: words of the contents (tool calls counted as their JSON). */
export function wordsIn(messages: readonly { content?: unknown; tool_calls?: unknown }[]): number {
  const text = messages.map((m) => `${typeof m.content === 'string' ? m.content : ''} ${m.tool_calls ? JSON.stringify(m.tool_calls) : ''}`).join(' ');
  return text.split(/\s+/).filter((w) => w !== '').length;
}

/** Drops undefined fields so the JSON looks like Ollama's (which omits empty ones). */
function strip(message: FakeChatMessage): Partial<FakeChatMessage> {
  return Object.fromEntries(Object.entries(message).filter(([, v]) => v !== undefined)) as Partial<FakeChatMessage>;
}
