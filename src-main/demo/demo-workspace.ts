import { join } from 'node:path';
import type { AgentSpec } from '@shared/contracts/spec';
import type { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import { canonicalJson } from '@shared/util/canonical-json';
import { loadSpecFile } from '../spec/load-spec';
import type { HostRegistry } from '../registry/host-registry';
import { SHIPPED_SERVERS } from '../registry/shipped-servers';
import { placeWorkspace } from '../registry/workspace-place';
import { examplesDir, exampleWorkspaceCopy } from './example-workspace';

export const DEMO_SPECS = ['notes-assistant.json', 'guarded-writes.json', 'ask-a-human.json', 'scs-summary.json'] as const;

/**
 * The demo workspace: the example specs, each pointed at its own copy of the sandbox folder in the
 * user-data folder (so the shipped files are never written), with scripts inlined for the app.
 */
export function prepareDemoWorkspace(dataDir: string): AgentSpec[] {
  return DEMO_SPECS.map((file) => {
    const loaded = loadSpecFile(join(examplesDir(), file));
    const spec = loaded.spec;
    let workspace = loaded.workspace;
    if (spec.workspace !== undefined && loaded.workspace !== undefined) workspace = exampleWorkspaceCopy(dataDir, spec.id, loaded.workspace).path;
    const { script_file: _scriptFile, ...rest } = spec;
    return { ...rest, workspace, script: loaded.script };
  });
}

/** The demo workspace copy's registered id. */
export const demoWorkspaceId = (specId: string): string => `demo-${specId}`;

/**
 * The demo workflows as the page gets them: their workspace copies registered (inside the data
 * folder: no one is asked) and their servers referenced by the shipped entries they use. A demo
 * that needs anything else is a packaging mistake and fails here, loudly.
 */
export function demoHostedWorkflows(dataDir: string, registry: HostRegistry, onRegistered: (id: string, path: string) => void): HostedWorkflow[] {
  return prepareDemoWorkspace(dataDir).map((spec) => {
    let workspace: string | undefined;
    if (spec.workspace !== undefined) {
      workspace = demoWorkspaceId(spec.id);
      const place = placeWorkspace(spec.workspace, dataDir);
      const known = registry.workspace(workspace);
      if (!known || known.path !== place.path) {
        registry.putWorkspace({ id: workspace, label: `${spec.name} (demo copy)`, path: place.path, in_data_folder: place.in_data_folder });
        onRegistered(workspace, place.path);
      }
    }
    if (Object.keys(spec.tool_effects).length > 0) throw new Error(`demo ${spec.id} carries its own tool effects; the host's registry holds those`);
    const servers = spec.servers.map((s) => {
      const shipped = SHIPPED_SERVERS.find((x) => x.package === s.package && canonicalJson(x.args) === canonicalJson(s.args) && s.env === undefined);
      if (!shipped) throw new Error(`demo ${spec.id}: server ${s.id} is not one of the shipped entries`);
      return { id: s.id, server: shipped.id, ...(s.tools ? { tools: s.tools } : {}) };
    });
    const { servers: _servers, workspace: _path, tool_effects: _effects, script_file: _file, ...rest } = spec;
    return { ...rest, servers, ...(workspace ? { workspace } : {}) };
  });
}
