import { z } from 'zod';
import { MASK } from '../util/mask';
import { checkModelUrl, isLoopbackHostname } from './model-url';

/**
 * One judgment sent to a remote A2A agent (a pattern node's `a2a` judge, issue 29), as the run's
 * privacy log records it, like a model call or a remote MCP call: which agent (its card's name and
 * version) at which host, what the message carried — the judgment text's size (the text itself was
 * masked by the run before it left, and is not logged) and the data part's field names with every
 * value masked — how many requests and bytes left the machine, and how it ended. A host the workspace
 * privacy policy does not allow is recorded too: refused, with no request sent.
 */
export const A2A_CALL_OUTCOMES = ['answered', 'refused', 'failed'] as const;
export const A2aCallOutcome = z.enum(A2A_CALL_OUTCOMES);
export type A2aCallOutcome = z.infer<typeof A2aCallOutcome>;

export const A2aCalled = z
  .object({
    /** `name[:port]` of the agent's address: never user info, path or query. */
    host: z.string().max(300),
    /** Loopback: it stayed on this machine. */
    local: z.boolean(),
    /** The name the node gives this judge, when it gives one. */
    name: z.string().max(200).optional(),
    /** The agent card's name and version, once it was read. */
    agent: z.object({ name: z.string().max(300), version: z.string().max(100) }).strict().optional(),
    judgment_id: z.string(),
    /** What the judgment message carried, when it was sent: the text's UTF-8 bytes and the data part's field names, values masked. */
    sent: z
      .object({
        text_bytes: z.number().int().nonnegative(),
        data_fields: z.record(z.string(), z.literal(MASK)),
      })
      .strict()
      .optional(),
    /** HTTP requests that left for the agent in this judgment (its card, the message): 0 means nothing was sent. */
    requests: z.number().int().nonnegative(),
    /** UTF-8 bytes of those requests' bodies. */
    bytes: z.number().int().nonnegative(),
    outcome: A2aCallOutcome,
    /** Why it was refused or failed, in words (masked like every event). */
    problem: z.string().max(500).optional(),
  })
  .strict();
export type A2aCalled = z.infer<typeof A2aCalled>;

/** `name[:port]` and whether it is this machine, of an agent's address; an address Steward never contacts (not http(s), user info, a secret in it) is named as such. */
export function agentPlace(url: string): { host: string; local: boolean } {
  const check = checkModelUrl(url);
  if (!check.ok) return { host: 'an address Steward does not contact', local: false };
  return { host: check.parts.host, local: isLoopbackHostname(check.parts.hostname) };
}

const sizeWords = (bytes: number): string => (bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / (1024 * 1024)).toFixed(1)} MiB`);

/** The agent as a person reads it: its card's name and version when read, else the node's name for it, and where it is. */
export function a2aAgentWords(call: Pick<A2aCalled, 'agent' | 'name' | 'host' | 'local'>): string {
  const who = call.agent ? `“${call.agent.name}” ${call.agent.version}` : call.name !== undefined ? `“${call.name}”` : '';
  return `the A2A agent${who ? ` ${who}` : ''} at ${call.host}${call.local ? ' (this machine)' : ''}`;
}

/** What the message carried, in words: sizes and field names, never the text or the values. */
export function a2aSentWords(call: Pick<A2aCalled, 'sent' | 'requests' | 'bytes'>): string {
  if (call.requests === 0) return 'nothing was sent';
  const requests = `${call.requests} request${call.requests === 1 ? '' : 's'}, ${sizeWords(call.bytes)}`;
  if (!call.sent) return `${requests} (its agent card; no judgment was sent)`;
  const fields = Object.keys(call.sent.data_fields);
  return `${requests}: the judgment text (${sizeWords(call.sent.text_bytes)}, masked before it left; not logged)${fields.length ? ` and the fields ${fields.join(', ')} (values not logged)` : ''}`;
}

/** One privacy-log line for a judgment sent to an A2A agent (the CLI prints it; the Privacy screen shows its parts). */
export function describeA2aCall(call: A2aCalled): string {
  switch (call.outcome) {
    case 'refused':
      return `judgment ${call.judgment_id} was not sent to ${a2aAgentWords(call)} · refused: ${call.problem ?? 'the workspace privacy policy does not allow that host; nothing was sent'}`;
    case 'failed':
      return `judgment ${call.judgment_id} to ${a2aAgentWords(call)} failed${call.problem !== undefined ? ` (${call.problem})` : ''} · ${a2aSentWords(call)}`;
    case 'answered':
      return `judgment ${call.judgment_id} sent to ${a2aAgentWords(call)}, which answered · ${a2aSentWords(call)}`;
  }
}
