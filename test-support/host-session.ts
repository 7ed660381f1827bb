import type { RunEvent } from '../src-shared/contracts/events';
import type { HostMethod, HostResult, ResponseFrame } from '../src-shared/contracts/host-api';
import type { Host, HostSession } from '../src-main/composition/host-types';

/** A page on an in-process host: every event pushed to it, requests by method, `ok` throwing on an error frame. */
export function hostPage(host: Host, id = 'page') {
  const events: RunEvent[] = [];
  const session: HostSession = { id, push: (frame) => events.push(...frame.events) };
  let nextId = 1;
  const call = (method: HostMethod, params: unknown): Promise<ResponseFrame> => host.handle({ kind: 'request', id: nextId++, method, params }, session);
  const ok = async <M extends HostMethod>(method: M, params: unknown): Promise<HostResult<M>> => {
    const frame = await call(method, params);
    if (!frame.ok) throw new Error(`${frame.error.code}: ${frame.error.message}`);
    return frame.result as HostResult<M>;
  };
  return { events, call, ok };
}
