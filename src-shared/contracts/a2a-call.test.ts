import { describe, expect, it } from 'vitest';
import { A2aCalled, agentPlace, describeA2aCall } from './a2a-call';
import { MASK } from '../util/mask';

/** Issue 29: an A2A judge's call in the privacy log, in words; its place never carries user info, a path or a query. */
describe('an A2A call in the privacy log', () => {
  it('names the host only: no path, query or user info (an address with user info is not contacted at all); loopback is this machine', () => {
    expect(agentPlace('http://127.0.0.1:4123/a2a/jsonrpc?v=1')).toEqual({ host: '127.0.0.1:4123', local: true });
    expect(agentPlace('https://judge.example.com/agents/strict')).toEqual({ host: 'judge.example.com', local: false });
    expect(agentPlace('https://user:secret-pass@judge.example.com/')).toEqual({ host: 'an address Steward does not contact', local: false });
  });

  it('says what left and how it ended: answered, refused with nothing sent, failed', () => {
    const answered = A2aCalled.parse({ host: 'judge.example.com', local: false, agent: { name: 'Strict', version: '2' }, judgment_id: 'p:j0.1.0.1', sent: { text_bytes: 2048, data_fields: { outputs: MASK } }, requests: 2, bytes: 3000, outcome: 'answered' });
    expect(describeA2aCall(answered)).toBe('judgment p:j0.1.0.1 sent to the A2A agent “Strict” 2 at judge.example.com, which answered · 2 requests, 2.9 KiB: the judgment text (2.0 KiB, masked before it left; not logged) and the fields outputs (values not logged)');
    const refused = A2aCalled.parse({ host: 'judge.example.com', local: false, name: 'Reviewer', judgment_id: 'p:j0.1.0.1', requests: 0, bytes: 0, outcome: 'refused' });
    expect(describeA2aCall(refused)).toBe('judgment p:j0.1.0.1 was not sent to the A2A agent “Reviewer” at judge.example.com · refused: the workspace privacy policy does not allow that host; nothing was sent');
    const failed = A2aCalled.parse({ host: '127.0.0.1:9', local: true, judgment_id: 'p:j0.1.0.1', requests: 1, bytes: 0, outcome: 'failed', problem: 'the A2A judge at http://127.0.0.1:9 has no agent card Steward can read' });
    expect(describeA2aCall(failed)).toBe('judgment p:j0.1.0.1 to the A2A agent at 127.0.0.1:9 (this machine) failed (the A2A judge at http://127.0.0.1:9 has no agent card Steward can read) · 1 request, 0 B (its agent card; no judgment was sent)');
    // A value is never a field's content: only the mask.
    expect(A2aCalled.safeParse({ ...answered, sent: { text_bytes: 1, data_fields: { outputs: 'Cache reads.' } } }).success).toBe(false);
  });
});
