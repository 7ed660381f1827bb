import type { RunEvent } from '@shared/contracts/events';
import type { AgentSpec } from '@shared/contracts/spec';
import { recordedScript } from '@shared/replay/replay-script';
import { ReplayError, replayableStart, replaySpec } from '@shared/replay/replay-spec';
import { resolveSpec } from '../spec/load-spec';

/** A recorded run made ready to run again: its spec with the recorded answers as both models. */
export interface ReplayPlan {
  spec: AgentSpec;
  specDir: string;
  workspace?: string;
  /** The recorded run (a replay's own recorded run, for a replay of a replay). */
  replayOf: string;
  /** Where the replay's answers are not exactly the recorded ones. */
  gaps: string[];
}

/**
 * The replay of `runId` from its events and the workflow it names (`source`, as this host or CLI
 * holds it now; undefined when nobody holds it). Throws a ReplayError saying why it cannot be;
 * `live` is refused for answers stored masked or trimmed.
 */
export function planReplay(events: readonly RunEvent[], runId: string, source: { spec: AgentSpec; specDir: string } | undefined, options: { live?: boolean } = {}): ReplayPlan {
  const started = replayableStart(events, runId);
  const { script, gaps, liveProblems } = recordedScript(events);
  // Fail closed: a live tool would get the mask for a password, or half a file.
  if (options.live && liveProblems.length > 0) {
    const more = liveProblems.length > 1 ? ` and ${liveProblems.length - 1} more` : '';
    throw new ReplayError('not_rebuildable', `live tools would execute what the trace stored, not what the model said (${liveProblems[0]}${more}): replay it as a dry run`);
  }
  if (!source) throw missingWorkflow(started.spec_id);
  const loaded = resolveSpec(source.spec, source.specDir);
  const vars = { specDir: loaded.specDir, ...(loaded.workspace !== undefined ? { workspace: loaded.workspace } : {}) };
  const spec = replaySpec(events, started, source.spec, vars, script);
  // A replay of a replay is of the recorded run: its answers are that run's, and review samples as it did.
  const replayOf = started.replay_of ?? started.run_id;
  return { spec, specDir: loaded.specDir, ...(loaded.workspace !== undefined ? { workspace: loaded.workspace } : {}), replayOf, gaps };
}

function missingWorkflow(specId: string): ReplayError {
  return new ReplayError('not_rebuildable', `workflow "${specId}" is not known here, so its run cannot be rebuilt: replay it where the workflow is kept (the app), or give its spec file (--spec)`);
}
