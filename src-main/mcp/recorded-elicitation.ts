import type { ElicitationAsk, ElicitationReply } from './client-capabilities';
import type { OAuthConsent } from './mcp-tool-host';
import { ConsentRefusedError, consentMessage, scopesAsked } from './oauth/app-consent';

export interface ElicitationRecord {
  type: 'mcp.elicitation';
  server: string;
  mode: 'form' | 'url';
  message: string;
  fields: string[];
  action: ElicitationReply['action'];
  /** Set when nobody could be asked and the form's defaults answered it. */
  answered_by?: 'defaults';
  /** Set when Steward asked the person to authorize the server (OAuth consent mid-run): see recordedConsent. */
  asked_for?: 'authorization';
}

/**
 * A run's elicitation handler that masks what the server shows the person (a secret the run knows
 * never reaches a page) and records in the trace that it asked and how it ended: field names and
 * the action, never the values the person gave.
 */
export function recordedElicitation(
  onElicit: (ask: ElicitationAsk) => Promise<ElicitationReply>,
  run: { mask: (text: string) => string; emit: (event: ElicitationRecord) => void },
): (ask: ElicitationAsk) => Promise<ElicitationReply> {
  return async (ask) => {
    const masked: ElicitationAsk = { ...ask, message: run.mask(ask.message) };
    const record = { type: 'mcp.elicitation', server: ask.server, mode: ask.mode, message: masked.message.slice(0, 500), fields: ask.mode === 'form' ? ask.fields.map((f) => f.name) : [] } as const;
    let reply: ElicitationReply = { action: 'cancel' };
    try {
      reply = await onElicit(masked);
      return reply;
    } finally {
      run.emit({ ...record, action: reply.action, ...(reply.action === 'accept' && reply.by === 'defaults' ? { answered_by: 'defaults' as const } : {}) });
    }
  };
}

/**
 * A run's OAuth consent (a wider scope, or signing in again, mid-run: app-consent.ts in the app,
 * the terminal's browser page) recorded in the trace as an `mcp.elicitation` in url mode with
 * `asked_for: "authorization"`: the server, the (masked) sentence the person is shown and how it
 * ended — never the authorization link, its state, the code or a token. Declined or unanswered
 * where Steward asks (the app's card): recorded as the person answered. Otherwise it ends with the
 * authorization page: `accept` once it came back with a code, `decline` when the authorization
 * server says the person refused, `cancel` when nobody came back (the wait ran out, the run stopped).
 */
export function recordedConsent(consent: OAuthConsent, run: { mask: (text: string) => string; emit: (event: ElicitationRecord) => void }): OAuthConsent {
  return async (server, authorizationUrl, why, settled) => {
    const record = {
      type: 'mcp.elicitation',
      server,
      mode: 'url',
      message: run.mask(consentMessage(server, scopesAsked(authorizationUrl), why)).slice(0, 500),
      fields: [],
      asked_for: 'authorization',
    } as const;
    try {
      await consent(server, authorizationUrl, why, settled);
    } catch (error) {
      run.emit({ ...record, fields: [], action: error instanceof ConsentRefusedError ? error.action : 'cancel' });
      throw error;
    }
    // The page is shown: the consent ends when it comes back (or does not).
    if (settled === undefined) run.emit({ ...record, fields: [], action: 'accept' });
    else
      void settled.then(
        (action) => run.emit({ ...record, fields: [], action }),
        () => run.emit({ ...record, fields: [], action: 'cancel' }),
      );
  };
}
