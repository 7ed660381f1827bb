import type { Proposer } from '@shared/contracts/round';
import type { SupervisionSpec } from '@shared/contracts/spec';

/**
 * Who proposes each round. Phases 0 (teacher only) and 1 (shadow) let the teacher decide; from
 * phase 2 the student does, except during a bounded teacher takeover after an escalation.
 */
export class Handover {
  private takeoverLeft: number;

  constructor(
    private readonly supervision: Pick<SupervisionSpec, 'enabled' | 'phase' | 'takeover_rounds'>,
    takeoverLeft = 0,
  ) {
    this.takeoverLeft = takeoverLeft;
  }

  /** Rounds of takeover still to go (kept in a checkpoint). */
  get remaining(): number {
    return this.takeoverLeft;
  }

  /** The teacher decides in phases 0–1 (when supervision is on) and while a takeover lasts. */
  proposer(): Proposer {
    if (!this.supervision.enabled) return 'student';
    return this.supervision.phase <= 1 || this.takeoverLeft > 0 ? 'teacher' : 'student';
  }

  get inTakeover(): boolean {
    return this.takeoverLeft > 0;
  }

  /** An escalation hands the next rounds to the teacher; returns how many. */
  startTakeover(): number {
    this.takeoverLeft = this.supervision.takeover_rounds;
    return this.takeoverLeft;
  }

  /** After a teacher round in a takeover; true when control has just returned to the student. */
  endOfRound(): boolean {
    if (this.takeoverLeft === 0) return false;
    this.takeoverLeft -= 1;
    return this.takeoverLeft === 0;
  }
}
