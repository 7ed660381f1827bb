import { Ollama, type Message, type Tool } from 'ollama';
import { z } from 'zod';
import { DEFAULT_MAX_REPLY_BYTES, modelLabel, type ModelRef, type ModelReply, type ModelRole } from '@shared/contracts/model';
import type { OfferedTool } from '@shared/contracts/tool-snapshot';
import { endpointOrThrow, pinnedFetch, type ModelEndpoint } from './endpoint';
import { startOllamaCall, toProviderError, type FetchFn } from './ollama-call';
import { ProviderError, type ModelProvider, type ModelRequest } from './provider';
import { startStopwatch, usageOf } from './call-usage';
import { cutAtBound } from './output-limit';

export type OllamaRef = Extract<ModelRef, { provider: 'ollama' }>;

export interface OllamaProviderOptions {
  /** Used for every request (tests pass one to observe; defaults to the global fetch). */
  fetch?: FetchFn;
  /** Host when the ref names none (the app's configured Ollama); default http://127.0.0.1:11434. */
  defaultHost?: string;
  /** Where requests go, already checked against the privacy policy (resolveProvider); parsed here when absent. */
  endpoint?: ModelEndpoint;
}

/**
 * Ollama's chat answer as far as we use it, checked on arrival: it crosses a process boundary.
 * Tool-call `arguments` are passed through untouched; the decision boundary judges them.
 */
const ChatAnswer = z.object({
  message: z.object({
    content: z.string().default(''),
    tool_calls: z
      .array(z.object({ function: z.object({ name: z.string().min(1), arguments: z.unknown() }) }))
      .nullish(),
  }),
  // Read loosely: a count the server got wrong must not fail the call (see call-usage.ts).
  prompt_eval_count: z.unknown().optional(),
  eval_count: z.unknown().optional(),
  // "length": stopped at the request's num_predict (output-limit.ts).
  done_reason: z.unknown().optional(),
});

/**
 * A model served by Ollama, through the real `ollama` client, non-streaming.
 * Structured mode sends the request's JSON Schema as `format` and never offers native tools (the
 * prompt lists them). Tools mode offers the round's tools natively and leaves the reply free, so
 * the model can call one tool or answer a control decision as JSON text; a request without tools
 * (the teacher's) still gets its `format`.
 */
export function createOllamaProvider(ref: OllamaRef, role: ModelRole, options: OllamaProviderOptions = {}): ModelProvider {
  const label = modelLabel(ref);
  const endpoint = options.endpoint ?? endpointOrThrow(ref, role, options.defaultHost);
  // Messages name the address without userinfo or query.
  const host = endpoint.display;

  return {
    label,
    async complete(request: ModelRequest): Promise<ModelReply> {
      const maxReplyBytes = ref.max_reply_bytes ?? DEFAULT_MAX_REPLY_BYTES;
      const call = startOllamaCall({ fetch: options.fetch, signal: request.signal, timeoutMs: ref.timeout_ms, maxReplyBytes });
      const failure = { host, model: ref.model, role, timeoutMs: ref.timeout_ms, call, maxReplyBytes };
      const elapsed = startStopwatch();
      try {
        if (call.stopped() === 'cancelled') throw new ProviderError('cancelled', `the ${role} model call was cancelled`);
        // The checked URL, and a fetch that cannot leave its origin: the client re-parses the host itself.
        const client = new Ollama({ host: endpoint.href, fetch: pinnedFetch(endpoint, call.fetch) });
        const nativeTools = ref.mode === 'tools' && request.tools !== undefined && request.tools.length > 0;
        const raw: unknown = await client.chat({
          model: ref.model,
          stream: false,
          messages: request.messages.map((m): Message => ({ role: m.role, content: m.content })),
          ...(nativeTools && request.tools ? { tools: request.tools.map(toOllamaTool) } : {}),
          ...(!nativeTools && request.format ? { format: request.format } : {}),
          ...(modelOptions(ref, request) ?? {}),
        });
        const answer = ChatAnswer.safeParse(raw);
        if (!answer.success) {
          const issues = answer.error.issues.map((i) => `${i.path.join('.') || 'reply'}: ${i.message}`).join('; ');
          throw new ProviderError('bad_response', `Ollama's reply for ${label} had an unexpected shape (${issues})`);
        }
        const calls = answer.data.message.tool_calls ?? [];
        const usage = usageOf(answer.data.prompt_eval_count, answer.data.eval_count);
        const cut = cutAtBound(label, request, answer.data.done_reason, usage);
        if (cut) throw cut;
        return {
          text: answer.data.message.content,
          tool_calls: calls.map((c) => ({ name: c.function.name, arguments: c.function.arguments })),
          model: label,
          ...(usage ? { usage } : {}),
          latency_ms: elapsed(),
        };
      } catch (err) {
        throw toProviderError(err, failure);
      } finally {
        call.dispose();
      }
    },
  };
}

/** The model's options: its temperature, and the request's output bound as `num_predict`. */
function modelOptions(ref: OllamaRef, request: ModelRequest): { options: { temperature?: number; num_predict?: number } } | undefined {
  const options = {
    ...(ref.temperature !== undefined ? { temperature: ref.temperature } : {}),
    ...(request.max_output_tokens !== undefined ? { num_predict: request.max_output_tokens } : {}),
  };
  return Object.keys(options).length > 0 ? { options } : undefined;
}

function toOllamaTool(tool: OfferedTool): Tool {
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      // The snapshotted schema, as is: the client's narrow type cannot describe every JSON Schema.
      parameters: tool.input_schema as NonNullable<Tool['function']['parameters']>,
    },
  };
}
