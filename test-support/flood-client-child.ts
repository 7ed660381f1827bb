import os from 'node:os';
import type { ToolSnapshot } from '../src-shared/contracts/tool-snapshot';
import { startToolHost, type McpToolHost } from '../src-main/mcp/mcp-tool-host';

/**
 * A client process for a flooding MCP server (argv[2]: its URL): calls `flood`, then `echo` on the
 * same server, and prints one JSON line — each outcome and how far this process's memory rose
 * during the flood call (the peak RSS, sampled and as the OS counts it, minus RSS before the call).
 * Its own process, so the test measures the client alone, not the server or the test runner.
 */
const url = process.argv[2] ?? '';
const mb = (bytes: number): number => Math.round(bytes / (1024 * 1024));

async function call(host: McpToolHost, snapshot: ToolSnapshot, name: string, args: Record<string, unknown>): Promise<{ ok: boolean; content?: string; error?: string }> {
  const tool = snapshot.tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  try {
    const execution = await host.execute({ decision: { decision_type: 'tool_call', tool_name: name, arguments: args }, tool, idempotency_key: `${name}-${'k'.repeat(60)}` });
    return { ok: execution.ok, content: execution.content.slice(0, 200) };
  } catch (error) {
    return { ok: false, error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

const host = await startToolHost([{ id: 'remote', url, args: [] }], { vars: {}, overrides: {}, cwd: os.tmpdir(), startTimeoutMs: 10_000, callTimeoutMs: 120_000 });
const snapshot = await host.snapshot(0);
const before = process.memoryUsage().rss;
const maxBefore = process.resourceUsage().maxRSS * 1024;
let peak = before;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
const flood = await call(host, snapshot, 'flood', {});
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
// The OS's peak counts when it rose during the call (the TypeScript loader's start may have set it higher).
const maxAfter = process.resourceUsage().maxRSS * 1024;
if (maxAfter > maxBefore) peak = Math.max(peak, maxAfter);
const echo = await call(host, snapshot, 'echo', { text: 'still there' });
await host.close();
process.stdout.write(`${JSON.stringify({ flood, echo, rss_before_mb: mb(before), growth_mb: mb(peak - before) })}\n`);
