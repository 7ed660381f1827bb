import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentSpec } from '@shared/contracts/spec';
import { loadSpecFile } from '../spec/load-spec';
import { appRoot } from '../util/app-root';

export const examplesDir = (): string => join(appRoot(), 'resources', 'examples');

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
    if (spec.workspace !== undefined && loaded.workspace !== undefined) {
      workspace = join(dataDir, 'demo', spec.id, spec.workspace.replace(/^(\.\/)+/, ''));
      if (!existsSync(workspace)) {
        mkdirSync(workspace, { recursive: true });
        cpSync(loaded.workspace, workspace, { recursive: true, errorOnExist: false, force: false });
      }
    }
    const { script_file: _scriptFile, ...rest } = spec;
    return { ...rest, workspace, script: loaded.script };
  });
}
