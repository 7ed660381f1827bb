import { DECISION_LABELS, DECISION_TYPES } from '@shared/contracts/decision';
import type { HostedServerRef } from '@shared/contracts/hosted-workflow';
import type { NodeOf } from '@shared/workflow/document';
import { DECISION_HELP, starterScript, starterTool } from '@shared/workflow/starter-script';
import { useHost } from '../../app/HostProvider';
import { useHostRegistry } from '../../host/use-host-registry';
import { nodeServers, useOfferedTools } from './use-offered-tools';
import type { ServerTools } from './use-server-tools';

type Agent = NodeOf<'agent'>;

/**
 * An agent without a model server: the replay models answer from the node's script. This offers a
 * first one built from the node's tools (one read, then complete) and says, in place, what each
 * decision a script entry can hold does. With a model chosen whose server is not reachable, it
 * offers to switch the node to the replay models with that script.
 */
export function ReplayStarter({ node, servers, workspace, tools, onChange }: { node: Agent; servers: readonly HostedServerRef[]; workspace?: string; tools: Pick<ServerTools, 'inspect' | 'inspecting'>; onChange: (next: Agent) => void }) {
  const { providers } = useHost();
  const registry = useHostRegistry();
  const mine = nodeServers(servers, node.servers);
  const offered = useOfferedTools(mine);
  const replayed = node.models.student.provider === 'script' || node.models.teacher.provider === 'script';
  const unreachable = !replayed && node.models.student.provider === 'ollama' && providers?.ollama.reachable === false;
  if (!replayed && !unreachable) return null;

  const tool = starterTool(offered);
  const folder = registry.state?.workspaces.find((w) => w.id === workspace)?.path;
  // No tool known: each of the node's servers may be looked up (its inspection fills the cache).
  const uninspected = tool ? [] : mine;
  const insert = (switchModels: boolean) => {
    const models = switchModels ? { student: { provider: 'script' as const }, teacher: { provider: 'script' as const } } : node.models;
    onChange({ ...node, models, script: starterScript(offered, { folder, teacher: models.teacher.provider === 'script' }) });
  };
  return (
    <section className="wf-inspector__section wf-starter" data-testid="replay-starter">
      <h3 className="wf-inspector__heading">{unreachable ? 'No model server' : 'Replay models'}</h3>
      <p className="muted">
        {unreachable
          ? `Ollama is not reachable at ${providers?.ollama.host ?? 'its address'}, so this agent cannot run on its model. The replay models answer from a script instead.`
          : 'With no model server, the replay models answer from this node\u2019s script, one entry per round, in order.'}
      </p>
      <button type="button" className="button button--small" onClick={() => insert(unreachable)} data-testid="starter-script">
        {unreachable ? 'Use the replay models with a starter script' : 'Starter replay script'}
      </button>
      <p className="form-row__hint" data-testid="starter-script-plan">
        {tool ? `Reads once with ${tool.name}${tool.hints?.readOnlyHint ? ' (read-only)' : ''}, then completes. Replaces the script; Undo brings it back.` : 'Completes at once: no tool of this node is known yet. Replaces the script; Undo brings it back.'}
      </p>
      {uninspected.map((s) => (
        <button key={s.id} type="button" className="button button--small" disabled={tools.inspecting !== undefined} onClick={() => tools.inspect(s.server)} data-testid={`starter-inspect-${s.id}`}>
          {tools.inspecting === s.server ? 'Looking up…' : `Look up the tools of ${s.id}`}
        </button>
      ))}
      <details className="wf-starter__help" data-testid="decision-help">
        <summary>What each decision does</summary>
        <dl>
          {DECISION_TYPES.map((t) => (
            <div key={t} className="wf-starter__decision">
              <dt>
                <code>{t}</code> · {DECISION_LABELS[t]}
              </dt>
              <dd>{DECISION_HELP[t]}</dd>
            </div>
          ))}
        </dl>
        <p className="form-row__hint">
          An entry is <code>{'{ "json": { "decision_type": … } }'}</code>; a teacher entry holds a verdict: <code>accept</code>, <code>replace</code>, <code>block</code> or <code>escalate</code>.
        </p>
      </details>
    </section>
  );
}
