import type { JudgeAnswer, WaitingFor } from '@shared/pattern/machine';

/** A person's judgment as the host got it: an answer (the loop verifies it), or the expiry. */
export type HumanJudgment = ({ kind: 'answered'; who?: string } & JudgeAnswer) | { kind: 'expired'; at: string };

/**
 * Where a human caller's judgment comes from. Absent (no person can answer in this host), the
 * judgment escalates as the system with "no person can answer here".
 */
export type JudgeHuman = (waiting: WaitingFor, signal: AbortSignal) => Promise<HumanJudgment>;

