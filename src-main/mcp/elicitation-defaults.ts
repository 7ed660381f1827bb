import type { ElicitContent } from '@shared/policy/elicitation-form';
import { setOwn } from '@shared/util/set-own';
import type { ElicitationAsk, ElicitationReply } from './client-capabilities';

/**
 * A server's elicitation where no person can be asked (no terminal, `--json`): the form is answered
 * with the defaults its schema gives (SEP-1034), as a person who pressed Accept on the form as shown
 * would. A form with a required field that has no default cannot be answered so, and a link is never
 * opened for nobody: those are cancelled (nobody made a choice). The reply says it came from the
 * defaults, so the run's trace does not claim a person answered.
 */
export async function answerWithDefaults(ask: ElicitationAsk): Promise<ElicitationReply> {
  if (ask.mode !== 'form') return { action: 'cancel' };
  const content: ElicitContent = {};
  for (const field of ask.fields) {
    if (field.default !== undefined) setOwn(content, field.name, field.default);
    else if (field.required) return { action: 'cancel' };
  }
  return { action: 'accept', content, by: 'defaults' };
}
