import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import type { McpServerSpec } from '@shared/contracts/spec';
import { startToolHost, type McpToolHost, type ToolHostOptions } from '../src-main/mcp/mcp-tool-host';

/**
 * Tool hosts over one real stdio MCP server script of test-support (run with this Node), closed
 * after each test. Its start deadline is longer than any test's: a timeout can only be the wrong answer.
 */
export function scriptServerHosts(script: string, id: string) {
  const path = fileURLToPath(new URL(script, import.meta.url));
  const hosts: McpToolHost[] = [];
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((h) => h.close()));
  });
  return async (args: string[] = [], extra: Partial<McpServerSpec> = {}, options: Partial<ToolHostOptions> = {}): Promise<McpToolHost> => {
    const host = await startToolHost([{ id, command: process.execPath, args: [path, ...args], ...extra }], { vars: {}, overrides: {}, cwd: process.cwd(), startTimeoutMs: 60_000, ...options });
    hosts.push(host);
    return host;
  };
}
