import { appendFileSync, closeSync, existsSync, ftruncateSync, openSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { hashJson } from '../util/hash';

/**
 * I5: an idempotency key never executes twice, across retry, resume and replay. The boundary asks
 * `state(key)` during authorization; the host calls `begin` right before the tool runs and `finish`
 * right after. A key begun but never finished (a crash mid-call) stays `in_flight` for good: its
 * outcome is unknown, so it is never run again.
 */
export type LedgerState = 'new' | 'executed' | 'in_flight';

export interface LedgerBeginMeta {
  run_id: string;
  round: number;
  server: string;
  tool: string;
}

export interface LedgerOutcome {
  ok: boolean;
  is_error: boolean;
}

export interface IdempotencyLedger {
  state(key: string): LedgerState;
  /** Claims the key; throws DuplicateExecutionError unless its state is `new`. */
  begin(key: string, meta: LedgerBeginMeta): void;
  /** Records the outcome; throws LedgerError unless the key is `in_flight`. */
  finish(key: string, outcome: LedgerOutcome): void;
}

export class DuplicateExecutionError extends Error {
  override readonly name = 'DuplicateExecutionError';
  constructor(
    readonly key: string,
    readonly state: Exclude<LedgerState, 'new'>,
  ) {
    super(
      state === 'executed'
        ? `idempotency key ${key.slice(0, 12)}… has already been executed; it never executes twice`
        : `idempotency key ${key.slice(0, 12)}… is in flight (started, outcome unknown); it is never executed again`,
    );
  }
}

export class LedgerError extends Error {
  override readonly name = 'LedgerError';
}

/** The key of one tool call: same run, round, server, tool and arguments (in any key order) → same key. */
export function idempotencyKey(input: {
  run_id: string;
  round: number;
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
}): string {
  return hashJson({ v: 1, run_id: input.run_id, round: input.round, server: input.server, tool: input.tool, arguments: input.arguments });
}

/** A ledger for one process (tests, dry runs). */
export function createMemoryLedger(): IdempotencyLedger {
  return new LedgerCore(() => undefined);
}

const BeginRecord = z
  .object({
    type: z.literal('begin'),
    key: z.string().min(1),
    run_id: z.string(),
    round: z.number().int().nonnegative(),
    server: z.string(),
    tool: z.string(),
    at: z.string(),
  })
  .strict();
const FinishRecord = z
  .object({ type: z.literal('finish'), key: z.string().min(1), ok: z.boolean(), is_error: z.boolean(), at: z.string() })
  .strict();
const LedgerRecord = z.discriminatedUnion('type', [BeginRecord, FinishRecord]);
type LedgerRecord = z.infer<typeof LedgerRecord>;

/**
 * A ledger journaled to an append-only JSONL file that survives a restart. Each record is appended
 * before the call it describes proceeds. A torn last line (crash mid-append) is cut off on open: a
 * torn `begin` means `begin` never returned so the tool never started, a torn `finish` leaves the
 * key in flight; both are safe.
 * Any other unreadable line means the journal cannot be trusted, so opening fails.
 */
export function openFileLedger(path: string): IdempotencyLedger {
  const ledger = new LedgerCore((record) => appendFileSync(path, `${JSON.stringify(record)}\n`, 'utf8'));
  if (!existsSync(path)) return ledger;

  const text = readFileSync(path, 'utf8');
  const complete = text.lastIndexOf('\n') + 1;
  text
    .slice(0, complete)
    .split('\n')
    .forEach((line, index) => {
      if (line.trim() === '') return;
      ledger.replay(parseLine(line, index + 1, path));
    });
  const torn = text.slice(complete);
  if (torn.length > 0) {
    const record = tryParse(torn);
    if (record) {
      // Whole record, only the newline lost: honour it (fail closed) and end the line.
      ledger.replay(record);
      appendFileSync(path, '\n', 'utf8');
    } else {
      // Cut the fragment so the next append starts on a clean line instead of gluing onto it.
      const fd = openSync(path, 'r+');
      try {
        ftruncateSync(fd, Buffer.byteLength(text.slice(0, complete), 'utf8'));
      } finally {
        closeSync(fd);
      }
    }
  }
  return ledger;
}

function tryParse(line: string): LedgerRecord | undefined {
  try {
    const parsed = LedgerRecord.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function parseLine(line: string, lineNo: number, path: string): LedgerRecord {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    throw new LedgerError(`idempotency ledger ${path} line ${lineNo} is not JSON; refusing to guess which calls already ran`);
  }
  const parsed = LedgerRecord.safeParse(json);
  if (!parsed.success) {
    throw new LedgerError(`idempotency ledger ${path} line ${lineNo} is not a ledger record; refusing to guess which calls already ran`);
  }
  return parsed.data;
}

class LedgerCore implements IdempotencyLedger {
  private readonly states = new Map<string, Exclude<LedgerState, 'new'>>();

  constructor(private readonly journal: (record: LedgerRecord) => void) {}

  state(key: string): LedgerState {
    return this.states.get(key) ?? 'new';
  }

  begin(key: string, meta: LedgerBeginMeta): void {
    const state = this.states.get(key);
    if (state !== undefined) throw new DuplicateExecutionError(key, state);
    // Journal first: if the write fails, the key is not claimed and the call does not run.
    this.journal({ type: 'begin', key, ...pickMeta(meta), at: new Date().toISOString() });
    this.states.set(key, 'in_flight');
  }

  finish(key: string, outcome: LedgerOutcome): void {
    const state = this.state(key);
    if (state !== 'in_flight') throw new LedgerError(`cannot finish idempotency key ${key.slice(0, 12)}…: it is ${state}, not in flight`);
    this.journal({ type: 'finish', key, ok: outcome.ok, is_error: outcome.is_error, at: new Date().toISOString() });
    this.states.set(key, 'executed');
  }

  /** Rebuilds state from the journal on open. A repeated record cannot make a key `new` again. */
  replay(record: LedgerRecord): void {
    if (record.type === 'begin') {
      if (!this.states.has(record.key)) this.states.set(record.key, 'in_flight');
    } else {
      this.states.set(record.key, 'executed');
    }
  }
}

function pickMeta(meta: LedgerBeginMeta): LedgerBeginMeta {
  return { run_id: meta.run_id, round: meta.round, server: meta.server, tool: meta.tool };
}
