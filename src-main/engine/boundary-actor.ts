import { createActor, fromPromise } from 'xstate';
import type { AuthorizationFacts } from '@shared/boundary/authorization';
import { boundaryMachine, type AuthorizeInput, type BoundaryInput, type CommitInput, type DeliverInput, type ExecuteInput, type ProposeInput, type ReviewInput } from '@shared/boundary/machine';
import type { ModelReply } from '@shared/contracts/model';
import type { ToolExecution } from '@shared/contracts/round';
import type { BoundaryEffects } from './boundary-actors';

/** Each running boundary actor's effects, by its actor system (its invoked steps share their parent's). */
const effectsOf = new WeakMap<object, BoundaryEffects>();

/** A step of an actor started without its effects fails, and the machine ends the round in a typed outcome. */
function effects(system: object): BoundaryEffects {
  const found = effectsOf.get(system);
  if (!found) throw new Error('a boundary step ran without the host effects of its round');
  return found;
}

/**
 * The boundary machine with the host's actors provided once for the process. `provide` builds a new
 * machine (every state node and transition again, and XState's caches cold): once per tool node's
 * call a round of the machine took 0.8 ms against 0.24 (docs/benchmarks.md, bench/workflow). Each
 * actor's own effects are found by its actor system instead, so one machine serves every round and
 * every call.
 */
const hostedBoundaryMachine = boundaryMachine.provide({
  actors: {
    propose: fromPromise<ModelReply, ProposeInput>(({ input, signal, system }) => effects(system).propose({ input, signal })),
    review: fromPromise<ModelReply, ReviewInput>(({ input, signal, system }) => effects(system).review({ input, signal })),
    authorize: fromPromise<AuthorizationFacts, AuthorizeInput>(({ input, system }) => effects(system).authorize({ input })),
    commit: fromPromise<{ history_index: number }, CommitInput>(({ input, system }) => effects(system).commit({ input })),
    execute: fromPromise<ToolExecution, ExecuteInput>(({ input, signal, system }) => effects(system).execute({ input, signal })),
    deliver: fromPromise<void, DeliverInput>(({ input, system }) => effects(system).deliver({ input })),
  },
});

/** One round's boundary actor (not started), its steps run by `effects`: an agent's run's, or a tool node's call's. */
export function createBoundaryActor(effectsOfRound: BoundaryEffects, input: BoundaryInput) {
  const actor = createActor(hostedBoundaryMachine, { input });
  effectsOf.set(actor.system, effectsOfRound);
  return actor;
}
