import type { ElicitationAsk, ElicitationReply } from './client-capabilities';

export interface ElicitationRecord {
  type: 'mcp.elicitation';
  server: string;
  mode: 'form' | 'url';
  message: string;
  fields: string[];
  action: ElicitationReply['action'];
  /** Set when nobody could be asked and the form's defaults answered it. */
  answered_by?: 'defaults';
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
