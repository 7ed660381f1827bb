import { evaluateGates, type GateDef, type Thresholds } from '@shared/eval/gates';
import type { GateResult } from '@shared/eval/report';
import { openEvalWorld, type EvalWorld } from './eval-world';

/** What both suites share: one world of real servers for all cases, closed whatever happens, then the gates. */
export async function inEvalWorld<T>(run: (world: EvalWorld) => Promise<T>): Promise<T> {
  const world = await openEvalWorld();
  try {
    return await run(world);
  } finally {
    await world.close();
  }
}

export function reportHead<M>(started: number, supervisor: string, notes: string[], defs: ReadonlyArray<GateDef<M>>, metrics: M, thresholds?: Thresholds): { version: 1; generated_at: string; duration_ms: number; supervisor: string; notes: string[]; gates: GateResult[]; passed: boolean } {
  const gates = evaluateGates(defs, metrics, thresholds);
  return { version: 1, generated_at: new Date().toISOString(), duration_ms: Date.now() - started, supervisor, notes, gates, passed: gates.every((g) => g.passed) };
}
