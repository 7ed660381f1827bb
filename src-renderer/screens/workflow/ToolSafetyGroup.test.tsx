import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import type { RegisteredServer } from '@shared/contracts/host-registry';
import { resolveToolEffect } from '@shared/policy/effect-registry';
import { expandHostedWorkflow, type RegistryView } from '@shared/policy/expand-workflow';
import { FILESYSTEM_PACKAGE } from '@shared/policy/shipped-effects';
import { ToolSafetyGroup } from './AdvancedGroups';

const filesystem: RegisteredServer = { id: 'filesystem', label: 'Filesystem', package: FILESYSTEM_PACKAGE, args: ['${workspace}'], env: {}, source: 'shipped' };
const custom: RegisteredServer = { id: 'mytool', label: 'My tool', command: '/usr/local/bin/mytool', args: [], env: {}, source: 'user' };

function workflow(servers: { id: string; server: string; tools?: string[] }[]): HostedWorkflow {
  return HostedWorkflow.parse({ format: 'steward/v1', kind: 'agent', id: 'notes', name: 'Notes', instructions: 'i', task: 't', workspace: 'notes', servers });
}

const host = (overrides: RegistryView['overrides'] = []): RegistryView => ({
  servers: [filesystem, custom],
  workspaces: [{ id: 'notes', label: 'Notes', path: '/tmp/notes', in_data_folder: true }],
  overrides,
});

/** The panel's rows as [tool, effect, source] from their data attributes. */
function rows(html: string): string[][] {
  return [...html.matchAll(/data-tool="([^"]+)" data-effect="([^"]+)" data-source="([^"]+)"/g)].map((m) => [m[1]!, m[2]!, m[3]!]);
}

describe('the panel’s Tool safety', () => {
  it('shows a never-inspected shipped server’s tools with their shipped effects, not "unknown until inspected"', () => {
    const html = renderToStaticMarkup(<ToolSafetyGroup doc={workflow([{ id: 'fs', server: 'filesystem', tools: ['read_text_file', 'write_file'] }])} registry={[]} host={host()} />);
    expect(rows(html)).toEqual([
      ['read_text_file', 'read', 'shipped'],
      ['write_file', 'irreversible_write', 'shipped'],
    ]);
    expect(html).toContain('Steward’s shipped default');
    expect(html).not.toContain('unknown until inspected');
  });

  it('lists the shipped tools when the workflow offers them all and nobody inspected the server', () => {
    const html = renderToStaticMarkup(<ToolSafetyGroup doc={workflow([{ id: 'fs', server: 'filesystem' }])} registry={[]} host={host()} />);
    expect(rows(html)).toContainEqual(['list_directory', 'read', 'shipped']);
    expect(rows(html).length).toBeGreaterThan(4);
  });

  it('your setting wins over the shipped default, and a tool nobody described is protected', () => {
    const confirmWrites = { server: 'filesystem', tool: 'write_file', effect: { effect: 'reversible_write' as const, requires_user_confirmation: true, idempotency_supported: false, sensitive_arguments: [] } };
    const html = renderToStaticMarkup(
      <ToolSafetyGroup doc={workflow([{ id: 'fs', server: 'filesystem', tools: ['write_file'] }, { id: 'mine', server: 'mytool', tools: ['frobnicate'] }])} registry={[]} host={host([confirmWrites])} />,
    );
    expect(rows(html)).toEqual([
      ['write_file', 'reversible_write', 'user'],
      ['frobnicate', 'unknown', 'missing'],
    ]);
    expect(html).toContain('Reversible write · asks you');
    expect(html).toContain('nobody described it: protected');
  });

  it('shows for every tool exactly the effect a run of the expanded workflow resolves', () => {
    const overrides = [{ server: 'filesystem', tool: 'read_text_file', effect: { effect: 'external_communication' as const, requires_user_confirmation: false, idempotency_supported: false, sensitive_arguments: [] } }];
    const doc = workflow([{ id: 'fs', server: 'filesystem', tools: ['read_text_file', 'write_file', 'get-env'] }, { id: 'mine', server: 'mytool', tools: ['frobnicate'] }]);
    const expanded = expandHostedWorkflow(doc, host(overrides));
    if (!expanded.ok) throw new Error(expanded.message);
    // What the host's tool host resolves when a run starts each server (mcp-tool-host.ts).
    const byRun = expanded.spec.servers.flatMap((s) =>
      (s.tools ?? []).map((tool) => {
        const { effect, source } = resolveToolEffect({ serverId: s.id, packageName: s.package, tool, overrides: expanded.spec.tool_effects });
        return [tool, effect.effect, source];
      }),
    );
    const html = renderToStaticMarkup(<ToolSafetyGroup doc={doc} registry={[]} host={host(overrides)} />);
    expect(rows(html)).toEqual(byRun);
  });
});

describe('marking a tool read that Steward knows nothing about', () => {
  const asRead = (server: string, tool: string) => ({ server, tool, effect: { effect: 'read' as const, requires_user_confirmation: false, idempotency_supported: false, sensitive_arguments: [] } });

  it('warns that this trusts the server’s own implementation', () => {
    const html = renderToStaticMarkup(<ToolSafetyGroup doc={workflow([{ id: 'mine', server: 'mytool', tools: ['query'] }])} registry={[]} host={host([asRead('mytool', 'query')])} />);
    expect(rows(html)).toEqual([['query', 'read', 'user']]);
    expect(html).toContain('data-testid="read-trust-warning"');
    expect(html).toContain('trusts the server&#x27;s own implementation');
  });

  it('says nothing when the shipped default already calls it read', () => {
    const html = renderToStaticMarkup(<ToolSafetyGroup doc={workflow([{ id: 'fs', server: 'filesystem', tools: ['read_text_file'] }])} registry={[]} host={host([asRead('filesystem', 'read_text_file')])} />);
    expect(html).not.toContain('read-trust-warning');
  });
});
