import { AsyncLocalStorage } from 'node:async_hooks';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { boundedAnswer, type AnswerTooLarge } from './answer-bound';

/** The bodies one request's send opened (its POST, and any request made on the way, e.g. a token refresh), and whether one was cut. */
interface Sending {
  bodies: Promise<void>[];
  cut?: AnswerTooLarge;
  /** Its send has settled: a fetch still made in its context (the SDK resuming a stream later) is no longer its own. */
  settled?: boolean;
}

/**
 * Bounds every answer a remote server sends over HTTP (answer-bound.ts) and fails the request an
 * answer belonged to. The SDK's transport reads a JSON answer inside `send`, so a cut there already
 * fails the call; an event-stream answer it reads after `send` returns, and a stream that breaks is
 * only reported to `onerror`: the call would wait out its timeout. So `watch` makes a request's
 * `send` last until the bodies it opened have ended, and fail with AnswerTooLarge when one was cut:
 * the SDK fails the call with that error, and the connection stays up for the next one. A body no
 * request owns (the server's own event stream) goes to `onStreamCut`.
 */
export class BoundedHttp {
  private readonly sending = new AsyncLocalStorage<Sending>();

  constructor(
    private readonly limit: number,
    private readonly onStreamCut: (error: AnswerTooLarge) => void,
  ) {}

  fetch(base: FetchLike): FetchLike {
    return async (url, init) => {
      const response = await base(url, init);
      // Each request's send runs in its own async context: a fetch made within it is that request's.
      const store = this.sending.getStore();
      const sending = store?.settled === true ? undefined : store;
      const bounded = boundedAnswer(response, this.limit, (cut) => {
        if (sending && sending.settled !== true) sending.cut ??= cut;
        else this.onStreamCut(cut);
      });
      sending?.bodies.push(bounded.ended);
      return bounded.response;
    };
  }

  /** The transport, its `send` replaced: a request's send settles when its answer was read, or was cut. */
  watch<T extends Transport>(transport: T): T {
    const send = transport.send.bind(transport);
    transport.send = async (message, options) => {
      if (!isJSONRPCRequest(message)) return send(message, options);
      const sending: Sending = { bodies: [] };
      try {
        await this.sending.run(sending, () => send(message, options));
        await Promise.all(sending.bodies);
      } catch (error) {
        throw sending.cut ?? error;
      } finally {
        sending.settled = true;
      }
      if (sending.cut) throw sending.cut;
    };
    return transport;
  }
}
