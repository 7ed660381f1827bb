import type { ModelReply } from '../contracts/model';
import { TeacherVerdict } from '../contracts/verdict';
import { parseJsonText } from './parse-candidate';

export type VerdictParse = { ok: true; verdict: TeacherVerdict } | { ok: false; error: string };

/** The teacher answers with one strict JSON verdict; anything else is malformed (and re-asked). */
export function parseVerdict(reply: ModelReply): VerdictParse {
  if (reply.tool_calls.length > 0) {
    return { ok: false, error: 'the teacher called a tool instead of returning a verdict' };
  }
  const json = parseJsonText(reply.text);
  if (!json.ok) return { ok: false, error: json.error };
  const parsed = TeacherVerdict.safeParse(json.value);
  if (!parsed.success) {
    return {
      ok: false,
      error: parsed.error.issues.map((i) => `${i.path.join('.') || 'verdict'}: ${i.message}`).join('; '),
    };
  }
  return { ok: true, verdict: parsed.data };
}
