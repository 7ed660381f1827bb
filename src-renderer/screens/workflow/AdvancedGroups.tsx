import { describeExposure, EXPOSED_DATA, type PrivacyPolicy } from '@shared/policy/privacy';
import type { ModelRef } from '@shared/contracts/model';
import { EFFECT_LABELS, EFFECT_SOURCE_LABELS, isProtectedEffect} from '@shared/contracts/tool-effect';
import { readTrustWarning, registeredToolEffect, trustsServerForRead, type EffectRegistryView } from '@shared/policy/effect-registry';
import { SHIPPED_EFFECTS } from '@shared/policy/shipped-effects';
import type { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import { routeHref } from '../../app/routing';
import type { RegistryRow } from '../../db/db';
import { serverIdentity } from '../../db/registry';
import { fieldDomId } from '../../components/Form';
import { Chip } from '../../components/Chip';

export { EFFECT_SOURCE_LABELS };

/**
 * Tool safety: each tool of the workflow's servers with the effect runs give it (your setting, else
 * Steward's shipped default, else protected), whether or not the server was inspected, where that
 * came from, and where to change it.
 */
export function ToolSafetyGroup({ doc, registry, host }: { doc: HostedWorkflow; registry: readonly RegistryRow[]; host: EffectRegistryView }) {
  return (
    <div className="form-grid" id={fieldDomId('tool_effects')} tabIndex={-1}>
      <p className="form-note">
        Effect metadata comes from the <a href={routeHref({ name: 'registry' })}>MCP registry</a> (your settings, then Steward’s shipped defaults), never from a server’s own annotations. A tool nobody
        described is protected. Parallel tool calls stay disabled: one tool call per round, always.
      </p>
      {doc.servers.length === 0 && <p className="muted">This workflow uses no MCP servers.</p>}
      {doc.servers.map((server) => {
        const identity = serverIdentity(server);
        const names = toolNamesOf(server, registry, host);
        return (
          <div key={server.id} className="tool-summary" data-testid="tool-safety-server">
            <div className="tool-summary__head">
              <code className="tag">{server.id}</code>
              <span className="muted">{identity}</span>
            </div>
            {names.length === 0 ? (
              <p className="muted">
                Not inspected yet: open the <a href={routeHref({ name: 'registry' })}>MCP registry</a> and inspect this server to see its tools. Until then each of its tools is protected.
              </p>
            ) : (
              <table className="table table--compact">
                <thead>
                  <tr>
                    <th scope="col">Tool</th>
                    <th scope="col">Effect</th>
                    <th scope="col">Source</th>
                  </tr>
                </thead>
                <tbody>
                  {names.map((name) => {
                    const resolved = registeredToolEffect(host, identity, name);
                    const { effect, source } = resolved;
                    const trusting = trustsServerForRead(resolved, registeredToolEffect({ ...host, overrides: [] }, identity, name));
                    return (
                      <tr key={name} data-testid="tool-safety-tool" data-tool={name} data-effect={effect.effect} data-source={source}>
                        <td>
                          <code>{name}</code>
                        </td>
                        <td>
                          <span className={isProtectedEffect(effect.effect) ? 'effect effect--protected' : 'effect'}>
                            {EFFECT_LABELS[effect.effect]}
                            {effect.requires_user_confirmation ? ' · asks you' : ''}
                          </span>
                          {trusting && (
                            <p className="form-note is-warning" role="note" data-testid="read-trust-warning">
                              {readTrustWarning(name)}
                            </p>
                          )}
                        </td>
                        <td className="muted">{EFFECT_SOURCE_LABELS[source]}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            )}
          </div>
        );
      })}
    </div>
  );
}

/** The tools to list: those the workflow names, else those an inspection found, else those Steward ships metadata for. */
function toolNamesOf(server: HostedWorkflow['servers'][number], registry: readonly RegistryRow[], host: EffectRegistryView): string[] {
  if (server.tools) return server.tools;
  const identity = serverIdentity(server);
  const inspected = registry.filter((r) => r.server === identity).map((r) => r.tool);
  if (inspected.length > 0) return inspected;
  const pkg = host.servers.find((s) => s.id === identity)?.package;
  return pkg !== undefined && Object.hasOwn(SHIPPED_EFFECTS, pkg) ? Object.keys(SHIPPED_EFFECTS[pkg]?.tools ?? {}) : [];
}

/** What the models of this configuration will be shown, and where they run. */
export function ExposureText({ models, privacy, ollamaHost }: { models: { student: ModelRef; teacher: ModelRef }; privacy: PrivacyPolicy; ollamaHost?: string }) {
  const exposure = describeExposure(models, ollamaHost);
  const teacher = exposure.find((e) => e.role === 'teacher');
  return (
    <div className="exposure" data-testid="exposure-text">
      <ul className="plain-list">
        {exposure.map((x) => (
          <li key={x.role}>
            <strong>{x.role === 'student' ? 'Student' : 'Teacher'}</strong> <code>{x.model}</code>: {x.local ? 'runs on this machine' : <Chip tone="escalated">sends data to {x.host}</Chip>}
          </li>
        ))}
      </ul>
      <p className="exposure__cloud">
        {teacher && !teacher.local ? (
          <>
            <strong>What the cloud teacher at {teacher.host} will see:</strong> {teacher.data.join(', ')}. Sensitive tool arguments are masked before anything is sent; credentials never are.
          </>
        ) : (
          <>
            <strong>What a cloud teacher would see</strong>, if you picked one: {EXPOSED_DATA.teacher.join(', ')}. Sensitive tool arguments are masked; credentials are never sent.
          </>
        )}
      </p>
      <p className="form-note">
        Privacy policy: {privacy.allowed_hosts.length === 0 ? 'local only (no host allowed)' : `local, plus ${privacy.allowed_hosts.join(', ')}`}. <a href={routeHref({ name: 'settings' })}>Change it in Settings</a>.
      </p>
    </div>
  );
}

/** The Runtime group: editable (RuntimeGroup.tsx). */
export { RuntimeGroup, runtimeSummary } from './RuntimeGroup';

/** The Synthesis group: speech for delivered responses, editable (SynthesisGroup.tsx). */
export { SynthesisGroup, synthesisGroupSummary } from './SynthesisGroup';
