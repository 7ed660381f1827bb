import { z } from 'zod';
import { setOwn } from '@shared/util/set-own';
import { sensitiveFlow } from '@shared/workflow/sensitive-flow';
import { credentialErrorText, CredentialStoreError } from '../credentials/credential-store';
import type { SecretRegistry } from '../credentials/secret-registry';
import type { SealKey, SealKeys } from '../credentials/seal-keys';
import { openText, sealText, type SealedBox } from './sealed-box';
import { clearServerInput, shownAgentIntervention, shownWorkflowInterventions } from './shown-waiting';
import type { RunCheckpoint } from '../engine/checkpoint';
import { WorkflowCheckpoint } from './workflow-checkpoint';

/** What the box holds: the fields of the checkpoint that carry the values. */
const SealedFields = z
  .object({
    scheduler_events: z.array(z.record(z.string(), z.unknown())),
    running: z.array(z.unknown()),
    waiting: z.record(z.string(), z.unknown()),
  })
  .strict();

/**
 * A waiting run's sensitive values, sealed (issue 27). A run that waits for a person while holding a
 * value bound for a sensitive tool argument keeps what it needs to resume — its scheduler log (the
 * run's inputs, nodes' outputs), the invocations running and the waiting calls themselves — only
 * sealed with AES-256-GCM under a key in the OS keychain (credentials/seal-keys.ts); in the clear the
 * checkpoint keeps the waiting questions as a page is shown them (masked), which is all a listing or
 * an answer's checks read. Only a resume opens the box, and only the tool call gets the value.
 *
 * Whole fields are sealed, not values one by one: a value also sits inside a template's text, a
 * failure message or an escaped JSON string, which a value-by-value seal would miss.
 *
 * The checkpoint as it is written: the fields that carry values sealed, the waiting questions in the
 * clear as a page is shown them (an agent node's own checkpoint and a pattern's loop masked by the run's registry).
 */
export function sealCheckpoint(raw: WorkflowCheckpoint, key: SealKey, secrets: SecretRegistry): WorkflowCheckpoint {
  const sealed = sealText(JSON.stringify({ scheduler_events: raw.scheduler_events, running: raw.running, waiting: raw.waiting }), key, raw.run_id);
  const shown = shownWorkflowInterventions(raw);
  const waiting: WorkflowCheckpoint['waiting'] = {};
  Object.entries(raw.waiting).forEach(([id, parked], i) => {
    setOwn(waiting, id, {
      intervention: shown[i] ?? secrets.mask(parked.intervention),
      ...(parked.checkpoint ? { checkpoint: secrets.mask(clearAgentCheckpoint(parked.checkpoint)) } : {}),
      ...(parked.pattern ? { pattern: secrets.mask(parked.pattern) } : {}),
      // A waiting child run goes into the box; its id (and its own waiting children's) stays in the clear (issue 29).
      ...(parked.child ? { child_run_ids: childRunIds(parked.child) } : {}),
    });
  });
  return { ...raw, scheduler_events: [], running: [], waiting, sealed };
}

/** A waiting agent node's checkpoint as it stays in the clear (the whole one is in the box): its question as shown, a paused call's answers and server state left out. */
function clearAgentCheckpoint(checkpoint: RunCheckpoint): RunCheckpoint {
  const { server_input: wait, ...rest } = checkpoint;
  return { ...rest, intervention: shownAgentIntervention(checkpoint), ...(wait ? { server_input: clearServerInput(wait) } : {}) };
}

/** A waiting child run's id and those of the children waiting inside it, sealed or not. */
function childRunIds(child: WorkflowCheckpoint): string[] {
  return [child.run_id, ...Object.values(child.waiting).flatMap((w) => (w.child ? childRunIds(w.child) : (w.child_run_ids ?? [])))];
}

export type OpenedCheckpoint = { ok: true; checkpoint: WorkflowCheckpoint; key: SealKey | undefined } | { ok: false; code: SealLoss; message: string };

/** Why a sealed checkpoint did not open. */
export type SealLoss = 'seal_key_missing' | 'keychain_unavailable' | 'sealed_damaged';

/** A sealed box's text with the key that opened it, or why it did not open (in words: `why`). */
export type OpenedText = { ok: true; plain: string | undefined; key: SealKey } | { ok: false; code: SealLoss; why: string };

/**
 * Opens a run's sealed box with its keychain key (a workflow's checkpoint here, an agent run's in
 * engine/sealed-run-checkpoint.ts): `plain` undefined when the box is damaged or not that key's.
 */
export async function openSealedText(sealed: SealedBox, runId: string, keys: SealKeys): Promise<OpenedText> {
  let key: SealKey | undefined;
  try {
    key = await keys.byId(sealed.key_id);
  } catch (err) {
    const reason = err instanceof CredentialStoreError ? credentialErrorText(err) : err instanceof Error ? err.message : String(err);
    return { ok: false, code: 'keychain_unavailable', why: `the keychain that holds its key could not be read (${trimEnd(reason)})` };
  }
  if (!key) return { ok: false, code: 'seal_key_missing', why: `the keychain key that locked it (${sealed.key_id}) is gone: it was deleted, or this is another account or computer` };
  return { ok: true, plain: openText(sealed, key, runId), key };
}

/** What cannot be unlocked says so, then what to do. */
export const DAMAGED_WHY = 'what was locked is damaged or was not locked with that key';

/** A checkpoint as it resumes: a sealed one opened with its key, any other as it is. */
export async function openCheckpoint(checkpoint: WorkflowCheckpoint, keys: SealKeys): Promise<OpenedCheckpoint> {
  const { sealed } = checkpoint;
  if (!sealed) return { ok: true, checkpoint, key: undefined };
  const lost = (code: SealLoss, why: string): OpenedCheckpoint => ({ ok: false, code, message: lostMessage(checkpoint, why) });
  const text = await openSealedText(sealed, checkpoint.run_id, keys);
  if (!text.ok) return lost(text.code, text.why);
  const { plain, key } = text;
  let opened: WorkflowCheckpoint | undefined;
  try {
    const fields = plain === undefined ? undefined : SealedFields.safeParse(JSON.parse(plain));
    const { sealed: _sealed, ...rest } = checkpoint;
    const parsed = fields?.success ? WorkflowCheckpoint.safeParse({ ...rest, ...fields.data }) : undefined;
    opened = parsed?.success ? parsed.data : undefined;
  } catch {
    opened = undefined;
  }
  if (!opened) return lost('sealed_damaged', DAMAGED_WHY);
  return { ok: true, checkpoint: opened, key };
}

/** The names a person knows the run's sensitive values by: its inputs that flow into a sensitive argument. */
export function sensitiveNames(graph: WorkflowCheckpoint['graph']): string[] {
  const { fields } = sensitiveFlow(graph);
  const declared = graph.nodes.flatMap((node) => (node.kind === 'input' ? node.fields.map((f) => f.name) : []));
  return [...new Set(declared)].filter((name) => fields.has(name));
}

function namesOf(graph: WorkflowCheckpoint['graph']): string {
  const names = sensitiveNames(graph);
  return names.length > 0 ? ` (${names.join(', ')})` : '';
}

function lostMessage(checkpoint: WorkflowCheckpoint, why: string): string {
  return lostWords(namesOf(checkpoint.graph), why);
}

/** A sealed run that cannot be opened: what happened, what is not lost, what to do. `names`: " (pin, code)" or "". */
export function lostWords(names: string, why: string): string {
  return `This run waited with a sensitive value${names} that can no longer be unlocked: ${why}. Nothing was sent to the tool and nothing else of the run is lost. Start the run again.`;
}

/** A node cannot wait: the words of its failure. `reason`: the keychain's own, in plain words. */
export function cannotWaitMessage(graph: WorkflowCheckpoint['graph'], reason: string): string {
  return cannotWaitWords(namesOf(graph), reason);
}

/** A run cannot wait holding a sensitive value without a keychain. `names`: " (pin, code)" or "". */
export function cannotWaitWords(names: string, reason: string): string {
  return `This step would wait for your answer while holding a sensitive value${names}, and there is no keychain to lock that value with while the run waits (${trimEnd(reason)}). Steward does not keep a sensitive value on disk unlocked, so the run does not wait: nothing was sent to the tool. Make the keychain available (on Linux, a Secret Service such as GNOME Keyring, unlocked) and start the run again.`;
}

function trimEnd(text: string): string {
  return text.trim().replace(/[.\s]+$/, '').slice(0, 400);
}
