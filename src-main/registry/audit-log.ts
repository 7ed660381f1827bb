import { appendFileSync, readFileSync } from 'node:fs';
import { AuditRecord } from '@shared/contracts/audit';

/**
 * The audit log of explicit actions (audit.jsonl): append-only, one validated record a line.
 * A line that does not parse is skipped when reading (and reported), never rewritten.
 */
export class AuditLog {
  constructor(
    private readonly path: string,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  append(record: Omit<AuditRecord, 'at'>, now = new Date()): AuditRecord {
    const full = AuditRecord.parse({ ...record, at: now.toISOString() });
    appendFileSync(this.path, `${JSON.stringify(full)}\n`, { mode: 0o600 });
    return full;
  }

  /** Newest first. */
  list(limit: number): AuditRecord[] {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const records: AuditRecord[] = [];
    const lines = text.split('\n');
    for (let i = lines.length - 1; i >= 0 && records.length < limit; i--) {
      const line = lines[i]!;
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        value = undefined;
      }
      const parsed = AuditRecord.safeParse(value);
      if (parsed.success) records.push(parsed.data);
      else this.log(`audit log line ${i + 1} is damaged; skipped`);
    }
    return records;
  }
}
