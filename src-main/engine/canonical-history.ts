import type { Decision } from '@shared/contracts/decision';
import type { HistoryEntry } from '@shared/contracts/history';

/** The run's canonical history. Only the boundary's commit step appends to it (I1). */
export class CanonicalHistory {
  private readonly items: HistoryEntry[];

  constructor(entries: readonly HistoryEntry[] = []) {
    this.items = entries.map((e) => ({ ...e }));
  }

  commit(round: number, decision: Decision): number {
    const index = this.items.length;
    this.items.push({ index, round, decision });
    return index;
  }

  settle(index: number, result: string, isError: boolean): void {
    const entry = this.items[index];
    if (entry) {
      entry.result = result;
      entry.result_is_error = isError;
    }
  }

  /** The result of the round's last committed decision (a question the person answered on resume). */
  settleLastOfRound(round: number, result: string): void {
    const entry = this.items.filter((e) => e.round === round).at(-1);
    if (entry) {
      entry.result = result;
      entry.result_is_error = false;
    }
  }

  entries(): HistoryEntry[] {
    return this.items.map((e) => ({ ...e }));
  }

  /** The entries themselves, to read now (a prompt built from them): no copy, so a round costs no more as the history grows. */
  view(): readonly Readonly<HistoryEntry>[] {
    return this.items;
  }

  get length(): number {
    return this.items.length;
  }
}
