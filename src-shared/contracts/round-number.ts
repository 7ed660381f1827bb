/**
 * A round's number as people and models read it. Records keep a round's index from 0 (events' and
 * RoundRecord's `round`, checkpoints' `next_round`, tool snapshots, sampling seeds, idempotency
 * keys); everything that shows a round (CLI lines, SCS evidence and prompts, OTLP attributes, replay
 * differences, trace files, the app) numbers it from 1 through this one function, so every screen says the same.
 */
export function roundNumber(round: number): number {
  return round + 1;
}

/** A round's index from its number: what a reader of a trace file (format 2, rounds from 1) keeps. */
export function roundIndex(number: number): number {
  return number - 1;
}
