import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServerSpec } from '@shared/contracts/spec';
import { FILESYSTEM_PACKAGE, MEMORY_PACKAGE } from '@shared/policy/shipped-effects';
import { startToolHost } from '../mcp/mcp-tool-host';
import type { ToolHost } from '../mcp/tool-host';
import { appRoot } from '../util/app-root';

/**
 * Where an eval suite runs: a temp folder and ONE set of real MCP servers from npm (filesystem
 * rooted at the folder, memory storing into it), shared by every case so a suite takes seconds.
 * Cases keep to their own subfolder; a path outside the folder is refused by the server itself.
 */
export interface EvalWorld {
  root: string;
  host: ToolHost;
  /** The servers as a document declares them (ids match the shared host's). */
  servers: McpServerSpec[];
  close(): Promise<void>;
}

export async function openEvalWorld(): Promise<EvalWorld> {
  const root = mkdtempSync(join(tmpdir(), 'steward-eval-'));
  const servers = [
    { id: 'fs', package: FILESYSTEM_PACKAGE, args: [root] },
    { id: 'memory', package: MEMORY_PACKAGE, env: { MEMORY_FILE_PATH: join(root, 'memory.jsonl') } },
  ].map((s) => McpServerSpec.parse(s));
  try {
    const host = await startToolHost(servers, { vars: {}, overrides: {}, cwd: root });
    return {
      root,
      host,
      servers,
      close: async () => {
        await host.close().catch(() => undefined);
        rmSync(root, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
}

/** A shipped example document (resources/examples), parsed as JSON: the reference shapes start from them. */
export function readExample(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(appRoot(), 'resources', 'examples', file), 'utf8')) as Record<string, unknown>;
}
