import { z } from 'zod';
import { HistoryEntry } from '@shared/contracts/history';
import { Intervention } from '@shared/contracts/intervention';
import { ChatMessage } from '@shared/contracts/model';
import { ModelScript } from '@shared/contracts/script';
import { ServerInputWait } from '@shared/contracts/server-input';
import type { SecretRegistry } from '../credentials/secret-registry';
import type { SealKey, SealKeys } from '../credentials/seal-keys';
import { sealText } from '../workflow/sealed-box';
import { DAMAGED_WHY, lostWords, openSealedText, type SealLoss } from '../workflow/sealed-checkpoint';
import { clearServerInput, shownAgentIntervention } from '../workflow/shown-waiting';
import { RunCheckpoint } from './checkpoint';

/** What the box holds: the fields of an agent run's checkpoint that carry the values. */
const SealedRunFields = z
  .object({
    history: z.array(HistoryEntry),
    intervention: Intervention,
    prompt: z.array(ChatMessage).optional(),
    script: ModelScript.optional(),
    /** The spec's own inline script (a demo's, a replay's): the model answers, the proposed call among them. */
    spec_script: ModelScript.optional(),
    scs: z.unknown().optional(),
    /** A call paused by its server's question: the host's answers (a sampled model reply may repeat a value) and the server's opaque state. */
    server_input: ServerInputWait.optional(),
  })
  .strict();

/**
 * A waiting agent run's sensitive values, sealed (issue 27), as a waiting workflow's are
 * (workflow/sealed-checkpoint.ts): an agent that proposed a call with an argument the registry marks
 * sensitive waits for a person holding that value — in the waiting call, the run's history, the
 * waiting round's prompt, the model script a replay answers from. Those fields are sealed whole
 * (AES-256-GCM, the key in the OS keychain); in the clear the checkpoint keeps the question as a page
 * is shown it (masked), which is all a listing or an answer's checks read. Only a resume opens it.
 */
export function sealRunCheckpoint(raw: RunCheckpoint, key: SealKey, secrets: SecretRegistry): RunCheckpoint {
  const fields: z.infer<typeof SealedRunFields> = {
    history: raw.history,
    intervention: raw.intervention,
    ...(raw.prompt !== undefined ? { prompt: raw.prompt } : {}),
    ...(raw.script !== undefined ? { script: raw.script } : {}),
    ...(raw.spec.script !== undefined ? { spec_script: raw.spec.script } : {}),
    ...(raw.scs !== undefined ? { scs: raw.scs } : {}),
    ...(raw.server_input !== undefined ? { server_input: raw.server_input } : {}),
  };
  const sealed = sealText(JSON.stringify(fields), key, raw.run_id);
  const { prompt: _prompt, script: _script, scs: _scs, server_input: serverInput, ...rest } = raw;
  const { script: _specScript, ...spec } = raw.spec;
  return { ...rest, spec, history: [], intervention: secrets.mask(shownAgentIntervention(raw)), ...(serverInput ? { server_input: clearServerInput(serverInput) } : {}), sealed };
}

export type OpenedRunCheckpoint = { ok: true; checkpoint: RunCheckpoint; sealed: boolean } | { ok: false; code: SealLoss; message: string };

/** An agent run's checkpoint as it resumes: a sealed one opened with its key (or why not, in words), any other as it is. */
export async function openRunCheckpoint(checkpoint: RunCheckpoint, keys: SealKeys): Promise<OpenedRunCheckpoint> {
  const { sealed } = checkpoint;
  if (!sealed) return { ok: true, checkpoint, sealed: false };
  const text = await openSealedText(sealed, checkpoint.run_id, keys);
  if (!text.ok) return { ok: false, code: text.code, message: lostWords('', text.why) };
  let opened: RunCheckpoint | undefined;
  try {
    const fields = text.plain === undefined ? undefined : SealedRunFields.safeParse(JSON.parse(text.plain));
    const { sealed: _sealed, ...rest } = checkpoint;
    const parsed = fields?.success ? RunCheckpoint.safeParse(reunited(rest, fields.data)) : undefined;
    opened = parsed?.success ? parsed.data : undefined;
  } catch {
    opened = undefined;
  }
  if (!opened) return { ok: false, code: 'sealed_damaged', message: lostWords('', DAMAGED_WHY) };
  return { ok: true, checkpoint: opened, sealed: true };
}

/** The clear fields and the opened ones together again: the spec with its script back. */
function reunited(clear: Omit<RunCheckpoint, 'sealed'>, opened: z.infer<typeof SealedRunFields>): unknown {
  const { spec_script: specScript, ...fields } = opened;
  return { ...clear, ...fields, spec: specScript !== undefined ? { ...clear.spec, script: specScript } : clear.spec };
}
