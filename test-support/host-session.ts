import type { RunEvent } from '../src-shared/contracts/events';
import type { PendingAsk } from '../src-shared/contracts/person-ask';
import type { ClientFrame, HostMethod, HostResult, ResponseFrame } from '../src-shared/contracts/host-api';
import type { Host, HostOptions, HostSession } from '../src-main/composition/host-types';
import { createHost } from '../src-main/composition/create-host';
import type { Transport, TransportSink } from '../src-renderer/host/transport';

/** A page on an in-process host: every event pushed to it, requests by method, `ok` throwing on an error frame. */
export function hostPage(host: Host, id = 'page') {
  const events: RunEvent[] = [];
  /** Runs the host said were deleted (runs.deleted frames). */
  const deleted: string[] = [];
  /** What MCP servers ask the person, as last pushed (asks frames). */
  const asks: { current: PendingAsk[] } = { current: [] };
  const session: HostSession = {
    id,
    push: (frame) => {
      if (frame.kind === 'events') events.push(...frame.events);
      else if (frame.kind === 'runs.deleted') deleted.push(...frame.run_ids);
      else asks.current = frame.asks;
    },
  };
  let nextId = 1;
  const call = (method: HostMethod, params: unknown): Promise<ResponseFrame> => host.handle({ kind: 'request', id: nextId++, method, params }, session);
  const ok = async <M extends HostMethod>(method: M, params: unknown): Promise<HostResult<M>> => {
    const frame = await call(method, params);
    if (!frame.ok) throw new Error(`${frame.error.code}: ${frame.error.message}`);
    return frame.result as HostResult<M>;
  };
  return { events, deleted, asks, call, ok };
}

/**
 * A browser-shell host on `dataDir` that `cleanups` closes, unless the test closed it first (a restart).
 */
export async function openTestHost(dataDir: string, cleanups: Array<() => Promise<void> | void>, extra: Pick<HostOptions, 'sealKeys'> = {}): Promise<Host> {
  const host = await createHost({ dataDir, shell: 'browser', log: () => undefined, ...extra });
  let closed = false;
  cleanups.push(() => (closed ? undefined : host.close()));
  return {
    ...host,
    close: async () => {
      closed = true;
      await host.close();
    },
  };
}

/** A page's transport wired straight to an in-process host: opens at once, `stop` is a closed tab. */
export function inProcessTransport(host: Host, id: string): Transport {
  let sink: TransportSink | undefined;
  const session: HostSession = { id, push: (frame) => sink?.frame(frame) };
  return {
    kind: 'websocket',
    start(s) {
      sink = s;
      queueMicrotask(() => s.state('open'));
    },
    send(frame: ClientFrame) {
      void host.handle(frame, session).then((response) => sink?.frame(response));
    },
    stop() {
      host.detach(session);
      sink?.state('closed');
      sink = undefined;
    },
  };
}
