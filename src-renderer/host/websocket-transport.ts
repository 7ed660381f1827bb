import { TOKEN_REFUSED_CLOSE, WS_REFUSAL_PROTOCOL } from '@shared/contracts/bridge';
import type { ClientFrame } from '@shared/contracts/host-api';
import type { Transport, TransportSink } from './transport';

export interface WebSocketTransportOptions {
  url: string;
  /** Read at every (re)connect, so a token stored meanwhile is picked up. */
  protocols: () => string[];
  minDelayMs?: number;
  maxDelayMs?: number;
  /** Opens the socket; the page's own WebSocket unless given (Node-side tests pass another WHATWG client). */
  createSocket?: (url: string, protocols: string[]) => WebSocket;
}

const OPEN = 1; // WebSocket.OPEN, without needing the global in environments that lack it

/**
 * The browser-run transport: JSON frames over one WebSocket, reconnecting with exponential
 * backoff (250 ms doubling to 5 s, reset once a connection opens) until stopped, so a page finds its
 * host again when it restarts. A host that refuses the page's token says so (bridge.ts
 * WS_REFUSAL_PROTOCOL, TOKEN_REFUSED_CLOSE): the state becomes `refused` and the transport stops
 * trying (the same token would be refused again) until `reconnect()`, after a new token was stored.
 */
export function createWebSocketTransport(options: WebSocketTransportOptions): Transport {
  const minDelay = options.minDelayMs ?? 250;
  const maxDelay = options.maxDelayMs ?? 5_000;
  let delay = minDelay;
  let socket: WebSocket | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let sink: TransportSink | undefined;
  let stopped = false;
  let refused = false;
  const createSocket = options.createSocket ?? ((url: string, protocols: string[]) => new WebSocket(url, protocols));

  const scheduleReconnect = () => {
    if (stopped || timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      connect();
    }, delay);
    delay = Math.min(delay * 2, maxDelay);
  };

  const refuse = (out: TransportSink) => {
    refused = true;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    out.state('refused');
  };

  const connect = () => {
    if (stopped || refused || !sink) return;
    const out = sink;
    out.state('connecting');
    let ws: WebSocket;
    try {
      ws = createSocket(options.url, options.protocols());
    } catch (err) {
      console.warn('[steward] cannot open the host socket', err);
      scheduleReconnect();
      return;
    }
    socket = ws;
    ws.onopen = () => {
      if (socket !== ws) return;
      // Refused in words, not opened: never reported as open (no request is sent on it).
      if (ws.protocol === WS_REFUSAL_PROTOCOL) {
        socket = undefined;
        ws.close();
        refuse(out);
        return;
      }
      delay = minDelay;
      out.state('open');
    };
    ws.onmessage = (msg: MessageEvent) => {
      if (socket !== ws || typeof msg.data !== 'string') return;
      out.frame(parseJson(msg.data));
    };
    ws.onclose = (event: CloseEvent) => {
      if (socket !== ws) return;
      socket = undefined;
      if (stopped) return;
      if (event.code === TOKEN_REFUSED_CLOSE) return refuse(out);
      out.state('connecting');
      scheduleReconnect();
    };
    // An error is always followed by close; reconnecting happens there.
    ws.onerror = () => undefined;
  };

  return {
    kind: 'websocket',
    start(s) {
      sink = s;
      connect();
    },
    send(frame: ClientFrame) {
      if (!socket || socket.readyState !== OPEN) throw new Error('not connected to the Steward host');
      socket.send(JSON.stringify(frame));
    },
    reconnect() {
      if (stopped) return;
      refused = false;
      delay = minDelay;
      // Already connected: nothing to do. Still connecting: that attempt offered the protocols read
      // before the new token was stored (a `#token=` link taken while the first attempt was under
      // way), so it is dropped and a new one made.
      if (socket !== undefined && socket.readyState === OPEN) return;
      if (socket !== undefined) {
        const old = socket;
        socket = undefined;
        old.close();
      }
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      connect();
    },
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      const ws = socket;
      socket = undefined;
      ws?.close();
      sink?.state('closed');
    },
  };
}

/** Unparseable text is passed on as-is: the client's validation rejects and counts it. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
