import { appendFileSync, closeSync, fstatSync, openSync, readSync, truncateSync } from 'node:fs';
import { z } from 'zod';
import type { ToolExecution } from '@shared/contracts/round';
import type { EffectClass } from '@shared/contracts/tool-effect';
import { hashJson } from '../util/hash';
import { describeHolder, isStale, newLockRecord, removeStale, sleepSync, tryLock, unlock } from '../util/lock-file';

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
  /**
   * The tool's effect class as the registry says (never guessed: a tool nobody described is
   * `unknown`). A `read` changes nothing a second call could repeat, so a ledger may let its claim
   * ride in its next commit instead of syncing before the call (history-ledger.ts).
   */
  effect?: EffectClass;
}

export interface LedgerOutcome {
  ok: boolean;
  is_error: boolean;
  /**
   * What the call gave back, as the model got it, when the history records it whole in run `recorded_in`
   * (its `tool.executed` for this key). A node that starts again after a stop is given it again instead of a
   * refusal; the call itself is never made twice. The history's ledger keeps only where to find it (so a
   * deleted run takes it along); a ledger in memory keeps the result for its process.
   */
  result?: KeptResult;
  recorded_in?: string;
}

/** A call's result as given again: its outcome, its text (masked as the model got it) and the call's error, if any. */
export type KeptResult = Pick<ToolExecution, 'ok' | 'is_error' | 'content' | 'error'>;

export interface IdempotencyLedger {
  state(key: string): LedgerState;
  /** Claims the key; throws DuplicateExecutionError unless its state is `new`. */
  begin(key: string, meta: LedgerBeginMeta): void;
  /** Records the outcome; throws LedgerError unless the key is `in_flight`. */
  finish(key: string, outcome: LedgerOutcome): void;
  /** The result an executed key's call gave back, when the ledger kept it (a ledger that keeps none has no such method). */
  keptResult?(key: string): KeptResult | undefined;
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
 * before the call it describes proceeds. A torn last line (crash mid-append) is cut off: a torn
 * `begin` means `begin` never returned so the tool never started, a torn `finish` leaves the key
 * in flight; both are safe.
 * Any other unreadable line means the journal cannot be trusted, so opening fails.
 *
 * Several processes may share the file (the app's host and `steward run` on one data folder): every
 * `begin` and `finish` takes the journal's lock file, reads the lines others appended since (from
 * the byte offset it had reached), and only then decides and appends. So two processes never both
 * begin one key, and a torn line is only ever repaired by the lock holder.
 */
export function openFileLedger(path: string): IdempotencyLedger {
  return new FileLedger(path);
}

/** How long `begin`/`finish` wait for another process's turn before failing closed. */
const JOURNAL_LOCK_TIMEOUT_MS = 10_000;

class FileLedger implements IdempotencyLedger {
  private readonly core = new LedgerCore((record) => appendFileSync(this.path, `${JSON.stringify(record)}\n`, 'utf8'));
  /** Bytes of the journal already replayed (always the end of a complete line). */
  private offset = 0;
  private lineNo = 0;
  private readonly lockPath: string;

  constructor(private readonly path: string) {
    this.lockPath = `${path}.lock`;
    this.exclusive(() => this.catchUp(true));
  }

  state(key: string): LedgerState {
    // Without the lock: complete lines only, a fragment is left for the next lock holder.
    this.catchUp(false);
    return this.core.state(key);
  }

  begin(key: string, meta: LedgerBeginMeta): void {
    this.exclusive(() => {
      this.catchUp(true);
      this.core.begin(key, meta);
    });
  }

  finish(key: string, outcome: LedgerOutcome): void {
    this.exclusive(() => {
      this.catchUp(true);
      this.core.finish(key, outcome);
    });
  }

  keptResult(key: string): KeptResult | undefined {
    return this.core.keptResult(key);
  }

  /** Replays every complete line appended since the last read (by anyone); with `repair`, settles a torn tail. */
  private catchUp(repair: boolean): void {
    const text = this.readFrom(this.offset);
    if (text.length === 0) return;
    const complete = text.lastIndexOf('\n') + 1;
    for (const line of text.slice(0, complete).split('\n').slice(0, -1)) {
      this.lineNo++;
      if (line.trim() === '') continue;
      this.core.replay(parseLine(line, this.lineNo, this.path));
    }
    this.offset += Buffer.byteLength(text.slice(0, complete), 'utf8');
    const torn = text.slice(complete);
    if (!repair || torn.length === 0) return;
    const record = tryParse(torn);
    if (record) {
      // Whole record, only the newline lost: honour it (fail closed) and end the line.
      appendFileSync(this.path, '\n', 'utf8');
      this.core.replay(record);
      this.lineNo++;
      this.offset += Buffer.byteLength(torn, 'utf8') + 1;
    } else {
      // Cut the fragment so the next append starts on a clean line instead of gluing onto it.
      truncateSync(this.path, this.offset);
    }
  }

  private readFrom(offset: number): string {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
      throw error;
    }
    try {
      const size = fstatSync(fd).size;
      if (size <= offset) return '';
      const buffer = Buffer.alloc(size - offset);
      let read = 0;
      while (read < buffer.length) {
        const n = readSync(fd, buffer, read, buffer.length - read, offset + read);
        if (n === 0) break;
        read += n;
      }
      return buffer.subarray(0, read).toString('utf8');
    } finally {
      closeSync(fd);
    }
  }

  /** Runs `fn` holding the journal's lock file; a lock left by a dead process is taken over. */
  private exclusive<T>(fn: () => T): T {
    const record = newLockRecord();
    const deadline = Date.now() + JOURNAL_LOCK_TIMEOUT_MS;
    for (;;) {
      const attempt = tryLock(this.lockPath, record);
      if (attempt.kind === 'acquired') break;
      if (attempt.kind === 'held' && isStale(attempt.holder)) {
        removeStale(this.lockPath, attempt.holder);
        continue;
      }
      if (attempt.kind === 'unreadable' && attempt.ageMs > JOURNAL_LOCK_TIMEOUT_MS) {
        removeStale(this.lockPath, null);
        continue;
      }
      if (Date.now() > deadline) {
        const who = attempt.kind === 'held' ? describeHolder(attempt.holder) : 'another process';
        throw new LedgerError(`the idempotency ledger ${this.path} has been locked by ${who} for over ${JOURNAL_LOCK_TIMEOUT_MS / 1000} s; the call does not run`);
      }
      sleepSync(2 + Math.random() * 8);
    }
    try {
      return fn();
    } finally {
      unlock(this.lockPath, record);
    }
  }
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
  /** Results kept for this process only: the journal file keeps states, not results. */
  private readonly results = new Map<string, KeptResult>();

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
    if (outcome.result) this.results.set(key, outcome.result);
  }

  keptResult(key: string): KeptResult | undefined {
    return this.states.get(key) === 'executed' ? this.results.get(key) : undefined;
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
