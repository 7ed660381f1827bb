import { z } from 'zod';
import {
  EventsCursor,
  HOST_METHODS,
  ServerFrame,
  type ClientFrame,
  type HostErrorCode,
  type HostMethod,
  type HostParams,
  type HostResult,
  type ResponseFrame,
} from '@shared/contracts/host-api';
import { RunEvent } from '@shared/contracts/events';
import type { PendingAsk } from '@shared/contracts/person-ask';
import type { ConnectionState, Transport } from './transport';

/** Why a request failed: the host's own error code, or something the client detected. */
export type HostRequestErrorCode = HostErrorCode | 'invalid_params' | 'invalid_result' | 'invalid_response' | 'disconnected';

/**
 * A request that failed. `message` is what a person reads (the UI shows it as it is): the host's
 * own words, or ours for what only a program could act on. The method and the raw text stay in
 * `detail`, for a "Details" disclosure or a bug report, never in front of the words.
 */
export class HostRequestError extends Error {
  readonly detail: string;
  constructor(
    readonly method: string,
    readonly code: HostRequestErrorCode,
    message: string,
  ) {
    super(requestErrorWords(code, message));
    this.name = 'HostRequestError';
    this.detail = `${method} (${code}): ${message}`;
  }
}

/** Set by the host when a request's params failed its schema: what follows is schema text. */
const HOST_SCHEMA_PREFIX = /^(?:invalid params for [\w.]+|malformed request): /;

function requestErrorWords(code: HostRequestErrorCode, message: string): string {
  switch (code) {
    case 'invalid_result':
    case 'invalid_response':
      return 'The host answered in a form this page cannot read. Reload the page; if it happens again, the page and the host may be from different versions of Steward.';
    case 'bad_request':
    case 'unknown_method':
      return 'The host did not understand this request. Reload the page; if it happens again, the page and the host may be from different versions of Steward.';
    case 'invalid_params':
      // The schema's own text (paths, "expected string") reads as noise; the words before it are kept.
      return HOST_SCHEMA_PREFIX.test(message) ? 'The host refused this request as not valid. Reload the page and try again.' : message;
    default:
      return message;
  }
}

/** Zod's built-in messages ("Too small: expected string to have >=1 characters"): schema text, not words. */
const ZOD_DEFAULT_MESSAGE = /^(?:Invalid|Too (?:small|big)|Expected|Unrecognized|Required|Input not)/;

/**
 * Params this page built failed the method's schema before anything was sent. A message the schema
 * was given in words (a credential name's rule) is shown; the schema's own text stays in `detail`.
 */
class ClientParamsError extends HostRequestError {
  constructor(method: string, issues: readonly { path: PropertyKey[]; message: string }[]) {
    super(method, 'invalid_params', issues.map((i) => `${i.path.map(String).join('.') || 'params'}: ${i.message}`).join('; '));
    const words = [...new Set(issues.map((i) => i.message).filter((m) => !ZOD_DEFAULT_MESSAGE.test(m)))];
    this.message = words.length > 0 ? `This could not be sent to the host: ${words.join('; ')}.` : 'This could not be sent to the host: something in it is not valid. Check what you entered and try again.';
  }
}

export interface HostClientStats {
  /** Frames that failed validation and were discarded whole. */
  droppedFrames: number;
  /** Individual pushed events that failed validation (their valid neighbours were kept). */
  droppedEvents: number;
}

export interface HostClient {
  request<M extends HostMethod>(method: M, params: HostParams<M>): Promise<HostResult<M>>;
  /**
   * Validated pushed events, with where they sit in the host's journal (a newer host says) and which of
   * their runs came from an imported trace. Returns an unsubscribe function.
   */
  onEvents(cb: (events: RunEvent[], cursor: EventsCursor | undefined, imported: readonly string[]) => void): () => void;
  /** Runs deleted from the host's journal (by a person or retention): the page deletes what it holds of them. Returns an unsubscribe function. */
  onDeleted(cb: (runIds: string[], journal: string) => void): () => void;
  /** What MCP servers ask the person right now (the whole list, on each change). Returns an unsubscribe function. */
  onAsks(cb: (asks: PendingAsk[]) => void): () => void;
  /** Connection state; the listener is called at once with the current state. */
  onState(cb: (state: ConnectionState) => void): () => void;
  stats(): HostClientStats;
  readonly transportKind: Transport['kind'];
  close(): void;
}

interface Pending {
  method: HostMethod;
  settle(frame: ResponseFrame): void;
  fail(error: HostRequestError): void;
}

/**
 * The one typed client for the host API, whatever carries the frames. Every incoming frame is
 * validated (ServerFrame, then the method's result schema); nothing unvalidated reaches the app.
 */
export function createHostClient(transport: Transport): HostClient {
  const pending = new Map<number, Pending>();
  const eventListeners = new Set<(events: RunEvent[], cursor: EventsCursor | undefined, imported: readonly string[]) => void>();
  const stateListeners = new Set<(state: ConnectionState) => void>();
  const deletedListeners = new Set<(runIds: string[], journal: string) => void>();
  const askListeners = new Set<(asks: PendingAsk[]) => void>();
  const counters: HostClientStats = { droppedFrames: 0, droppedEvents: 0 };
  let state: ConnectionState = 'connecting';
  let nextId = 1;
  let closed = false;

  const failAll = (message: string) => {
    for (const [id, p] of pending) {
      pending.delete(id);
      p.fail(new HostRequestError(p.method, 'disconnected', message));
    }
  };

  const setState = (next: ConnectionState) => {
    if (closed && next !== 'closed') return;
    if (next === state) return;
    const wasOpen = state === 'open';
    state = next;
    if (wasOpen) failAll('the connection to the Steward host was lost');
    for (const cb of stateListeners) safeCall(() => cb(next));
  };

  const deliverEvents = (events: RunEvent[], cursor: EventsCursor | undefined, imported: readonly string[] = []) => {
    // A frame of only invalid events still moves the cursor past them (they would fail again).
    if (events.length === 0 && cursor === undefined) return;
    for (const cb of eventListeners) safeCall(() => cb(events, cursor, imported));
  };

  const onFrame = (raw: unknown) => {
    if (closed) return;
    const parsed = ServerFrame.safeParse(raw);
    if (!parsed.success) {
      counters.droppedFrames += 1;
      // A response we cannot read still ends its request, so no caller waits forever.
      const id = responseIdOf(raw);
      const p = id === undefined ? undefined : pending.get(id);
      if (id !== undefined && p) {
        pending.delete(id);
        p.fail(new HostRequestError(p.method, 'invalid_response', 'the host sent a response that does not match the protocol'));
        return;
      }
      // One bad event must not hold its valid neighbours hostage (they would never be acked).
      deliverEvents(salvageEvents(raw, counters), salvageCursor(raw));
      return;
    }
    const frame = parsed.data;
    if (frame.kind === 'events') {
      deliverEvents(frame.events, frame.cursor, frame.imported);
      return;
    }
    if (frame.kind === 'runs.deleted') {
      for (const cb of deletedListeners) safeCall(() => cb(frame.run_ids, frame.journal));
      return;
    }
    if (frame.kind === 'asks') {
      for (const cb of askListeners) safeCall(() => cb(frame.asks));
      return;
    }
    const p = pending.get(frame.id);
    if (!p) {
      counters.droppedFrames += 1;
      return;
    }
    pending.delete(frame.id);
    p.settle(frame);
  };

  transport.start({ frame: onFrame, state: setState });

  return {
    transportKind: transport.kind,
    request<M extends HostMethod>(method: M, params: HostParams<M>): Promise<HostResult<M>> {
      if (closed) return Promise.reject(new HostRequestError(method, 'disconnected', 'the host client is closed'));
      if (state !== 'open') return Promise.reject(new HostRequestError(method, 'disconnected', 'not connected to the Steward host'));
      const spec = HOST_METHODS[method];
      const checked = (spec.params as z.ZodType).safeParse(params);
      if (!checked.success) {
        // Our own schema refused what this page built: a person can only retry; the issues stay in `detail`.
        return Promise.reject(new ClientParamsError(method, checked.error.issues));
      }
      // TS cannot narrow HOST_METHODS[M] per method; parsing with M's own schema yields HostResult<M>.
      const resultSchema = spec.result as z.ZodType;
      const id = nextId++;
      const frame: ClientFrame = { kind: 'request', id, method, params: checked.data };
      return new Promise<HostResult<M>>((resolve, reject) => {
        pending.set(id, {
          method,
          fail: reject,
          settle(response) {
            if (!response.ok) {
              reject(new HostRequestError(method, response.error.code, response.error.message));
              return;
            }
            // A schema that throws (Zod builds some lazily, on the first parse) fails the request, never leaves it hanging.
            let result: ReturnType<typeof resultSchema.safeParse>;
            try {
              result = resultSchema.safeParse(response.result);
            } catch (err) {
              reject(new HostRequestError(method, 'invalid_result', `the host's result could not be checked: ${err instanceof Error ? err.message : String(err)}`));
              return;
            }
            if (result.success) resolve(result.data as HostResult<M>);
            else reject(new HostRequestError(method, 'invalid_result', `the host's result failed validation: ${result.error.issues.map((i) => `${i.path.join('.') || 'result'}: ${i.message}`).join('; ')}`));
          },
        });
        try {
          transport.send(frame);
        } catch (err) {
          pending.delete(id);
          reject(new HostRequestError(method, 'disconnected', err instanceof Error ? err.message : String(err)));
        }
      });
    },
    onEvents(cb) {
      eventListeners.add(cb);
      return () => eventListeners.delete(cb);
    },
    onDeleted(cb) {
      deletedListeners.add(cb);
      return () => deletedListeners.delete(cb);
    },
    onAsks(cb) {
      askListeners.add(cb);
      return () => askListeners.delete(cb);
    },
    onState(cb) {
      stateListeners.add(cb);
      safeCall(() => cb(state));
      return () => stateListeners.delete(cb);
    },
    stats: () => ({ ...counters }),
    close() {
      if (closed) return;
      failAll('the host client was closed');
      setState('closed');
      closed = true;
      eventListeners.clear();
      deletedListeners.clear();
      askListeners.clear();
      stateListeners.clear();
      transport.stop();
    },
  };
}

function responseIdOf(raw: unknown): number | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { kind, id } = raw as { kind?: unknown; id?: unknown };
  return kind === 'response' && typeof id === 'number' ? id : undefined;
}

function salvageEvents(raw: unknown, counters: HostClientStats): RunEvent[] {
  if (typeof raw !== 'object' || raw === null) return [];
  const { kind, events } = raw as { kind?: unknown; events?: unknown };
  if (kind !== 'events' || !Array.isArray(events)) return [];
  const valid: RunEvent[] = [];
  for (const e of events) {
    const parsed = RunEvent.safeParse(e);
    if (parsed.success) valid.push(parsed.data);
    else counters.droppedEvents += 1;
  }
  return valid;
}

function salvageCursor(raw: unknown): EventsCursor | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const parsed = EventsCursor.safeParse((raw as { cursor?: unknown }).cursor);
  return parsed.success ? parsed.data : undefined;
}

/** A listener's bug must not take the connection down with it. */
function safeCall(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    console.error('[steward] host client listener failed', err);
  }
}
