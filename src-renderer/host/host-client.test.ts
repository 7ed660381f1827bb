import { describe, expect, it } from 'vitest';
import { createHostClient, HostRequestError } from './host-client';
import type { ConnectionState } from './transport';
import { FakeTransport } from '../testing/fake-transport';
import { eventLog, readExecutedRound, startRun } from '../testing/event-fixtures';

function connected() {
  const transport = new FakeTransport();
  const client = createHostClient(transport);
  transport.setState('open');
  return { transport, client };
}

const info = { app: 'steward', version: '0.1.0', shell: 'browser', demo: true };

describe('host client', () => {
  it('correlates responses with their requests by id, whatever order they arrive in', async () => {
    const { transport, client } = connected();
    const first = client.request('host.info', {});
    const second = client.request('run.cancel', { run_id: 'run-12345678' });
    const [a, b] = transport.sent;
    expect(a).toMatchObject({ kind: 'request', method: 'host.info', params: {} });
    expect(b).toMatchObject({ kind: 'request', method: 'run.cancel', params: { run_id: 'run-12345678' } });
    expect(a?.id).not.toBe(b?.id);

    transport.push({ kind: 'response', id: b?.id, ok: true, result: { cancelled: true } });
    transport.push({ kind: 'response', id: a?.id, ok: true, result: info });
    await expect(second).resolves.toEqual({ cancelled: true });
    await expect(first).resolves.toEqual(info);
  });

  it('rejects a request whose result does not match the method’s schema', async () => {
    const { transport, client } = connected();
    const pending = client.request('host.info', {});
    transport.push({ kind: 'response', id: transport.lastRequest().id, ok: true, result: { ...info, app: 'not-steward' } });
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostRequestError);
    expect(error).toMatchObject({ code: 'invalid_result', method: 'host.info' });
    // Words for the person; the schema's text kept for a bug report.
    expect(String((error as Error).message)).toMatch(/^The host answered in a form this page cannot read/);
    expect((error as HostRequestError).detail).toMatch(/^host\.info \(invalid_result\): the host's result failed validation: app: /);
  });

  it('passes the host’s own words through with its code, and never puts the method name in front of them', async () => {
    const { transport, client } = connected();
    const pending = client.request('run.cancel', { run_id: 'run-unknown1' });
    transport.push({ kind: 'response', id: transport.lastRequest().id, ok: false, error: { code: 'not_found', message: 'no such run' } });
    await expect(pending).rejects.toMatchObject({ code: 'not_found', method: 'run.cancel', message: 'no such run', detail: 'run.cancel (not_found): no such run' });
  });

  it('says a refusal by the host’s schema in words, not as schema text', async () => {
    const { transport, client } = connected();
    const pending = client.request('interventions.answer', { run_id: 'run-unknown1', intervention_id: 'iv-1', answer: { action: 'approve' } });
    transport.push({
      kind: 'response',
      id: transport.lastRequest().id,
      ok: false,
      error: { code: 'invalid_params', message: 'invalid params for interventions.answer: answer.arguments: Invalid input: expected record, received string' },
    });
    const error = (await pending.catch((e: unknown) => e)) as HostRequestError;
    expect(error.message).toBe('The host refused this request as not valid. Reload the page and try again.');
    expect(error.message).not.toMatch(/interventions\.answer|expected record/);
    expect(error.detail).toContain('answer.arguments: Invalid input');
  });

  it('refuses params that fail the method’s schema before sending, keeping a rule given in words and dropping schema text', async () => {
    const { transport, client } = connected();
    const sent = transport.sent.length;
    const bad = client.request('credentials.delete', { name: 'no spaces allowed' });
    await expect(bad).rejects.toMatchObject({ code: 'invalid_params', message: 'This could not be sent to the host: a credential name uses letters, digits, ".", "_" and "-" (at most 64).' });
    // @ts-expect-error -- a number where the schema wants a string: only Zod's own text describes it.
    const worse = client.request('credentials.delete', { name: 42 });
    const error = (await worse.catch((e: unknown) => e)) as HostRequestError;
    expect(error.message).toBe('This could not be sent to the host: something in it is not valid. Check what you entered and try again.');
    expect(error.detail).toMatch(/^credentials\.delete \(invalid_params\): name: Invalid input/);
    expect(transport.sent.length).toBe(sent);
  });

  it('ends a request whose response frame is malformed instead of leaving it waiting', async () => {
    const { transport, client } = connected();
    const pending = client.request('host.info', {});
    transport.push({ kind: 'response', id: transport.lastRequest().id, ok: 'yes' });
    await expect(pending).rejects.toMatchObject({ code: 'invalid_response' });
    expect(client.stats().droppedFrames).toBe(1);
  });

  it('drops and counts invalid pushed frames without disturbing valid ones', async () => {
    const { transport, client } = connected();
    const received: string[][] = [];
    client.onEvents((events) => received.push(events.map((e) => e.id)));
    const log = eventLog('run-client-0001');
    startRun(log);
    readExecutedRound(log, 0);

    transport.push('not json at all');
    transport.push({ kind: 'bogus', events: log.events });
    transport.push({ kind: 'events', events: 'nope' });
    transport.push({ kind: 'response', id: 999, ok: true, result: {} }); // nobody asked
    expect(received).toEqual([]);
    expect(client.stats().droppedFrames).toBe(4);

    // One corrupted event among valid ones: the valid ones still get through (and can be acked).
    const [first, second, ...rest] = log.events;
    transport.push({ kind: 'events', events: [first, { ...second, seq: -1 }, ...rest] });
    expect(received).toEqual([[first, ...rest].map((e) => e?.id)]);
    expect(client.stats()).toEqual({ droppedFrames: 5, droppedEvents: 1 });

    // Where the frame's events sit in the journal survives salvage: the dropped event would fail again anyway.
    const cursors: unknown[] = [];
    client.onEvents((_events, cursor) => cursors.push(cursor));
    transport.push({ kind: 'events', events: [{ ...first, seq: -1 }], cursor: { journal: 'j', after: 4, position: 5 } });
    expect(cursors).toEqual([{ journal: 'j', after: 4, position: 5 }]);

    // The client still works after all that.
    const pending = client.request('host.info', {});
    transport.push({ kind: 'response', id: transport.lastRequest().id, ok: true, result: info });
    await expect(pending).resolves.toEqual(info);
  });

  it('rejects pending requests when the connection drops, and works again after reconnect', async () => {
    const { transport, client } = connected();
    const states: ConnectionState[] = [];
    client.onState((s) => states.push(s));
    const pending = [client.request('host.info', {}), client.request('events.subscribe', {})];
    transport.setState('connecting');
    for (const p of pending) await expect(p).rejects.toMatchObject({ code: 'disconnected' });
    await expect(client.request('host.info', {})).rejects.toMatchObject({ code: 'disconnected' });

    transport.setState('open');
    const again = client.request('events.subscribe', {});
    transport.push({ kind: 'response', id: transport.lastRequest().id, ok: true, result: { journal: 'j', after: 0, head: 3 } });
    await expect(again).resolves.toEqual({ journal: 'j', after: 0, head: 3 });
    expect(states).toEqual(['open', 'connecting', 'open']);
  });

  it('rejects pending requests and stops the transport on close', async () => {
    const { transport, client } = connected();
    const pending = client.request('host.info', {});
    client.close();
    await expect(pending).rejects.toMatchObject({ code: 'disconnected' });
    expect(transport.stopped).toBe(true);
    await expect(client.request('host.info', {})).rejects.toBeInstanceOf(HostRequestError);
    // A late response after close is ignored, not thrown.
    transport.push({ kind: 'response', id: 1, ok: true, result: info });
  });

  it('refuses params that do not match the method before sending anything', async () => {
    const { transport, client } = connected();
    // @ts-expect-error: run_id is required; the client must also refuse it at run time.
    await expect(client.request('run.cancel', {})).rejects.toMatchObject({ code: 'invalid_params' });
    expect(transport.sent).toHaveLength(0);
  });

  it('keeps delivering to other listeners when one listener throws', () => {
    const { transport, client } = connected();
    const seen: number[] = [];
    client.onEvents(() => {
      throw new Error('listener bug');
    });
    client.onEvents((events) => seen.push(events.length));
    const log = eventLog('run-client-0002');
    startRun(log);
    const original = console.error;
    console.error = () => undefined;
    try {
      transport.push({ kind: 'events', events: log.events });
    } finally {
      console.error = original;
    }
    expect(seen).toEqual([1]);
  });
});
