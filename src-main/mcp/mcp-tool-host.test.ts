import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolCallDecision } from '@shared/contracts/decision';
import type { McpServerSpec } from '@shared/contracts/spec';
import type { ToolEffect } from '@shared/contracts/tool-effect';
import type { OfferedTool, ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { MASK } from '@shared/util/mask';
import { hashJson } from '../util/hash';
import { McpCallError, McpStartError, McpToolConfigError } from './errors';
import { startToolHost, type McpToolHost, type ToolHostOptions } from './mcp-tool-host';

const require = createRequire(import.meta.url);
const FS_PACKAGE = '@modelcontextprotocol/server-filesystem';
const everythingBin = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
const filesystemBin = path.join(path.dirname(require.resolve(`${FS_PACKAGE}/package.json`)), 'dist/index.js');

let workspace: string;
let outside: string;
const hosts: McpToolHost[] = [];

beforeEach(() => {
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'steward-mcp-ws-')));
  outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'steward-mcp-out-')));
  fs.writeFileSync(path.join(workspace, 'notes.txt'), 'hello from the workspace\n');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'not yours\n');
});

afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

function fsServer(extra: Partial<McpServerSpec> = {}): McpServerSpec {
  return { id: 'fs', package: FS_PACKAGE, args: ['${workspace}'], ...extra };
}

async function start(servers: McpServerSpec[], options: Partial<ToolHostOptions> = {}): Promise<McpToolHost> {
  const host = await startToolHost(servers, { vars: { workspace }, overrides: {}, cwd: workspace, ...options });
  hosts.push(host);
  return host;
}

function tool(snapshot: ToolSnapshot, name: string): OfferedTool {
  const found = snapshot.tools.find((t) => t.name === name);
  if (!found) throw new Error(`snapshot has no ${name}: ${snapshot.tools.map((t) => t.name).join(', ')}`);
  return found;
}

function call(name: string, args: Record<string, unknown>): ToolCallDecision {
  return { decision_type: 'tool_call', tool_name: name, arguments: args };
}

function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`gave up waiting: ${what}`);
}

describe('snapshot', () => {
  it('offers the filesystem tools with their shipped effects, annotations only as hints', async () => {
    const host = await start([fsServer()]);
    const snap = await host.snapshot(0);

    const read = tool(snap, 'read_text_file');
    expect(read).toMatchObject({ server: 'fs', effect: { effect: 'read' }, effect_source: 'shipped', hints: { readOnlyHint: true } });
    expect(read.schema_hash).toBe(hashJson(read.input_schema));
    expect(tool(snap, 'write_file')).toMatchObject({
      effect: { effect: 'irreversible_write', idempotency_supported: true },
      effect_source: 'shipped',
    });
    expect(tool(snap, 'edit_file').effect.effect).toBe('irreversible_write');
    expect(tool(snap, 'create_directory').effect.effect).toBe('reversible_write');
    expect(snap.tools.every((t) => t.effect_source === 'shipped')).toBe(true);
  });

  it('gives the same hashes every round while the server is unchanged, and a different one for a different offer', async () => {
    const host = await start([fsServer()]);
    const first = await host.snapshot(0);
    const second = await host.snapshot(1);
    expect(second.round).toBe(1);
    expect(second.hash).toBe(first.hash);
    expect(second.tools.map((t) => t.schema_hash)).toEqual(first.tools.map((t) => t.schema_hash));

    const narrowed = await start([fsServer({ tools: ['read_text_file'] })]);
    expect((await narrowed.snapshot(0)).hash).not.toBe(first.hash);
  });

  it('freezes each round\'s input schema: editing one snapshot does not touch the next', async () => {
    const host = await start([fsServer()]);
    const first = await host.snapshot(0);
    expect(() => {
      tool(first, 'read_text_file').input_schema.properties = { hijacked: { type: 'string' } };
    }).toThrow(TypeError);
    const second = await host.snapshot(1);
    expect(Object.keys(tool(second, 'read_text_file').input_schema.properties as object)).toContain('path');
    expect(tool(second, 'read_text_file').schema_hash).toBe(tool(await host.snapshot(2), 'read_text_file').schema_hash);
  });

  it('re-lists a server\'s tools when it announces a change, and offers the new tool from the next round', async () => {
    const growing = path.join(path.dirname(new URL(import.meta.url).pathname), '../../test-support/growing-mcp-server.mjs');
    const host = await start([{ id: 'grow', command: process.execPath, args: [growing] }]);
    const before = await host.snapshot(0);
    expect(before.tools.map((t) => t.name)).toEqual(['unlock']);
    expect((await host.snapshot(1)).hash).toBe(before.hash);
    await host.execute({ decision: { decision_type: 'tool_call', tool_name: 'unlock', arguments: {} }, tool: tool(before, 'unlock'), idempotency_key: 'k'.repeat(64) });
    await expect.poll(async () => (await host.snapshot(2)).tools.map((t) => t.name)).toEqual(['unlock', 'opened']);
    expect((await host.snapshot(3)).hash).not.toBe(before.hash);
    expect(tool(await host.snapshot(4), 'opened').effect_source).toBe('missing');
  });

  it('offers only the allowlisted tools', async () => {
    const host = await start([fsServer({ tools: ['read_text_file', 'list_directory'] })]);
    const snap = await host.snapshot(0);
    expect(snap.tools.map((t) => t.name).sort()).toEqual(['list_directory', 'read_text_file']);
  });

  it('refuses an allowlist that names a tool the server does not have', async () => {
    const host = await start([fsServer({ tools: ['read_text_file', 'format_disk'] })]);
    const error = await host.snapshot(0).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpToolConfigError);
    expect((error as Error).message).toMatch(/MCP server "fs" has no tool "format_disk"/);
  });

  it('lets the spec override a shipped effect', async () => {
    const strict: ToolEffect = { effect: 'irreversible_write', requires_user_confirmation: true, idempotency_supported: false, sensitive_arguments: [] };
    const host = await start([fsServer()], { overrides: { 'fs/read_text_file': strict } });
    const snap = await host.snapshot(0);
    expect(tool(snap, 'read_text_file')).toMatchObject({ effect: strict, effect_source: 'user' });
    expect(tool(snap, 'list_directory').effect_source).toBe('shipped');
  });

  it('treats a tool with no registry entry as unknown and protected, whatever its annotations claim', async () => {
    // Started by command with no package: nothing in the registry vouches for it.
    const host = await start([{ id: 'ev', command: process.execPath, args: [everythingBin] }]);
    const snap = await host.snapshot(0);
    const getEnv = tool(snap, 'get-env');
    expect(getEnv.hints?.readOnlyHint).toBe(true);
    expect(getEnv).toMatchObject({ effect: { effect: 'unknown' }, effect_source: 'missing' });
    expect(tool(snap, 'echo')).toMatchObject({ effect: { effect: 'unknown' }, effect_source: 'missing' });
  });

  it('does not trust a command-started server that calls itself the filesystem server: its tools stay protected', async () => {
    const host = await start([{ id: 'files', command: process.execPath, args: [filesystemBin, '${workspace}'] }]);
    const snap = await host.snapshot(0);
    expect(tool(snap, 'read_text_file')).toMatchObject({ server: 'files', effect: { effect: 'unknown' }, effect_source: 'missing' });
    expect(host.status()[0]).toMatchObject({ id: 'files', alive: true, server_name: 'secure-filesystem-server' });
  });

  it('refuses two servers offering the same tool name, and accepts them once one is restricted', async () => {
    const both = await start([fsServer({ id: 'a' }), fsServer({ id: 'b' })]);
    const error = await both.snapshot(0).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpToolConfigError);
    expect((error as Error).message).toMatch(/offered by both MCP servers "a" and "b".*"tools"/);

    const split = await start([fsServer({ id: 'a', tools: ['read_text_file'] }), fsServer({ id: 'b', tools: ['write_file'] })]);
    const snap = await split.snapshot(0);
    expect(snap.tools.map((t) => `${t.server}/${t.name}`)).toEqual(['a/read_text_file', 'b/write_file']);
  });
});

describe('execute', () => {
  it('returns the content of a file it reads', async () => {
    const host = await start([fsServer()]);
    const readTool = tool(await host.snapshot(0), 'read_text_file');
    const args = { path: path.join(workspace, 'notes.txt') };
    const result = await host.execute({ decision: call('read_text_file', args), tool: readTool, idempotency_key: 'key-read-1' });
    expect(result).toMatchObject({ server: 'fs', tool: 'read_text_file', ok: true, is_error: false, idempotency_key: 'key-read-1', arguments: args });
    expect(result.content).toContain('hello from the workspace');
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('writes the file to disk', async () => {
    const host = await start([fsServer()]);
    const writeTool = tool(await host.snapshot(0), 'write_file');
    const target = path.join(workspace, 'out.txt');
    const result = await host.execute({ decision: call('write_file', { path: target, content: 'written by a tool' }), tool: writeTool, idempotency_key: 'key-write-1' });
    expect(result.is_error).toBe(false);
    expect(fs.readFileSync(target, 'utf8')).toBe('written by a tool');
  });

  it('reports a refused call (a path outside the allowed folder) as an error result, not a crash', async () => {
    const host = await start([fsServer()]);
    const readTool = tool(await host.snapshot(0), 'read_text_file');
    const result = await host.execute({
      decision: call('read_text_file', { path: path.join(outside, 'secret.txt') }),
      tool: readTool,
      idempotency_key: 'key-outside',
    });
    expect(result).toMatchObject({ ok: true, is_error: true });
    expect(result.content).not.toContain('not yours');
    expect(result.content).toMatch(/denied|outside|allowed/i);
  });

  it('masks sensitive arguments in the returned execution but sends the real values', async () => {
    const sensitive: ToolEffect = { effect: 'irreversible_write', requires_user_confirmation: false, idempotency_supported: true, sensitive_arguments: ['content'] };
    const host = await start([fsServer()], { overrides: { 'fs/write_file': sensitive } });
    const writeTool = tool(await host.snapshot(0), 'write_file');
    const target = path.join(workspace, 'token.txt');
    const result = await host.execute({ decision: call('write_file', { path: target, content: 'sk-live-123' }), tool: writeTool, idempotency_key: 'key-mask' });
    expect(result.arguments).toEqual({ path: target, content: MASK });
    expect(JSON.stringify(result)).not.toContain('sk-live-123');
    expect(fs.readFileSync(target, 'utf8')).toBe('sk-live-123');
  });

  it('summarises binary content instead of passing the base64 along', async () => {
    const host = await start([{ id: 'ev', package: '@modelcontextprotocol/server-everything', args: [] }]);
    const image = tool(await host.snapshot(0), 'get-tiny-image');
    const result = await host.execute({ decision: call('get-tiny-image', {}), tool: image, idempotency_key: 'key-image' });
    expect(result.content).toMatch(/\[image image\/png \d+ bytes\]/);
    expect(result.content).not.toMatch(/iVBOR/);
  });

  it('turns a call that outlives its deadline into a call error, and an abort likewise', async () => {
    const host = await start([{ id: 'ev', package: '@modelcontextprotocol/server-everything', args: [], tools: ['trigger-long-running-operation'] }], {
      callTimeoutMs: 300,
    });
    const slow = tool(await host.snapshot(0), 'trigger-long-running-operation');
    const error = await host
      .execute({ decision: call('trigger-long-running-operation', { duration: 30, steps: 2 }), tool: slow, idempotency_key: 'key-slow' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpCallError);
    expect((error as Error).message).toMatch(/MCP server "ev" did not answer within 300 ms when asked to run "trigger-long-running-operation"/);

    const patient = await start([{ id: 'ev', package: '@modelcontextprotocol/server-everything', args: [], tools: ['trigger-long-running-operation'] }]);
    const controller = new AbortController();
    const pending = patient.execute({
      decision: call('trigger-long-running-operation', { duration: 30, steps: 2 }),
      tool: tool(await patient.snapshot(0), 'trigger-long-running-operation'),
      idempotency_key: 'key-aborted',
      signal: controller.signal,
    });
    controller.abort();
    await expect(pending).rejects.toThrow(/call to MCP server "ev" was aborted/);
  });

  it('never sends a call whose signal is already aborted', async () => {
    const host = await start([fsServer()]);
    const writeTool = tool(await host.snapshot(0), 'write_file');
    const target = path.join(workspace, 'aborted.txt');
    const controller = new AbortController();
    controller.abort();
    await expect(
      host.execute({ decision: call('write_file', { path: target, content: 'x' }), tool: writeTool, idempotency_key: 'key-abort', signal: controller.signal }),
    ).rejects.toBeInstanceOf(McpCallError);
    expect(fs.existsSync(target)).toBe(false);
  });

  it('refuses a decision that names a different tool than the one authorized', async () => {
    const host = await start([fsServer()]);
    const readTool = tool(await host.snapshot(0), 'read_text_file');
    const target = path.join(workspace, 'sneaky.txt');
    await expect(
      host.execute({ decision: call('write_file', { path: target, content: 'x' }), tool: readTool, idempotency_key: 'key-mismatch' }),
    ).rejects.toThrow(/authorized tool is "read_text_file"/);
    expect(fs.existsSync(target)).toBe(false);
  });
});

describe('server failures', () => {
  it('reports a command that does not exist', async () => {
    const error = await start([{ id: 'ghost', command: path.join(workspace, 'no-such-server'), args: [] }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpStartError);
    expect((error as Error).message).toMatch(/^MCP server "ghost" did not start: command not found: .*no-such-server/);
  });

  it('reports a working folder that does not exist instead of blaming the command', async () => {
    const gone = path.join(workspace, 'gone');
    const error = await start([fsServer()], { cwd: gone }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(`MCP server "fs" did not start: working folder does not exist: ${gone}`);
  });

  it('reports a server that exits at once, with its last stderr line', async () => {
    const script = 'console.error("loading config"); console.error("fatal: config.toml is missing"); process.exit(3)';
    const error = await start([{ id: 'bad', command: process.execPath, args: ['-e', script] }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpStartError);
    expect((error as Error).message).toBe(
      'MCP server "bad" did not start: it exited before completing the MCP handshake (fatal: config.toml is missing)',
    );
  });

  it('reports the filesystem server refusing a folder that does not exist', async () => {
    const missing = path.join(workspace, 'missing-folder');
    const error = await start([fsServer({ args: [missing] })]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpStartError);
    expect((error as Error).message).toBe(
      'MCP server "fs" did not start: it exited before completing the MCP handshake (Error: None of the specified directories are accessible)',
    );
  });

  it('reports a server that never answers the handshake, and stops it', async () => {
    const script = 'console.error("silent pid " + process.pid); setInterval(() => {}, 1000)';
    const lines: string[] = [];
    const error = await start([{ id: 'mute', command: process.execPath, args: ['-e', script] }], { startTimeoutMs: 1_000, onLog: (l) => lines.push(l) }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpStartError);
    expect((error as Error).message).toMatch(/^MCP server "mute" did not start: no answer to the MCP handshake within 1000 ms \(silent pid \d+\)$/);
    const pid = Number(/silent pid (\d+)/.exec((error as Error).message)?.[1]);
    await until(() => processGone(pid), 'the silent server to be killed');
  });

  it('stops the servers that did start when another one fails', async () => {
    const lines: string[] = [];
    const error = await start([fsServer(), { id: 'ghost', command: path.join(workspace, 'no-such-server'), args: [] }], {
      onLog: (l) => lines.push(l),
    }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/MCP server "ghost" did not start/);
    const started = lines.map((l) => /^\[mcp fs\] started pid (\d+)/.exec(l)?.[1]).find((p) => p !== undefined);
    expect(started).toBeDefined();
    await until(() => processGone(Number(started)), 'the filesystem server to be stopped');
  });

  it('refuses an unknown ${variable} in the args, naming it, before starting anything', async () => {
    const error = await start([fsServer({ args: ['${workspcae}'] })]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpStartError);
    expect((error as Error).message).toMatch(/unknown variable \$\{workspcae\}.*known: \$\{workspace\}/);
  });

  it('names the server that died mid-run on the next execute and snapshot', async () => {
    const host = await start([fsServer(), { id: 'ev', package: '@modelcontextprotocol/server-everything', args: [], tools: ['echo'] }]);
    const snap = await host.snapshot(0);
    const fsPid = host.status().find((s) => s.id === 'fs')?.pid;
    expect(fsPid).toEqual(expect.any(Number));
    process.kill(fsPid as number, 'SIGKILL');

    const error = await host
      .execute({ decision: call('read_text_file', { path: path.join(workspace, 'notes.txt') }), tool: tool(snap, 'read_text_file'), idempotency_key: 'k-dead' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpCallError);
    expect(error).toMatchObject({ server: 'fs', serverExited: true });
    expect((error as Error).message).toMatch(/^MCP server "fs" exited unexpectedly \(last stderr: .+\)/);

    await expect(host.snapshot(1)).rejects.toThrow(/MCP server "fs" exited unexpectedly/);
    expect(host.status().find((s) => s.id === 'fs')?.alive).toBe(false);

    // The other server is unaffected.
    const echoed = await host.execute({ decision: call('echo', { message: 'still here' }), tool: tool(snap, 'echo'), idempotency_key: 'k-echo' });
    expect(echoed.content).toContain('still here');
  });

  it('closes every server, and closing twice is harmless', async () => {
    const host = await start([fsServer()]);
    const pid = host.status()[0]?.pid;
    expect(pid).toEqual(expect.any(Number));
    await host.close();
    await host.close();
    await until(() => processGone(pid as number), 'the server to exit on close');
    await expect(host.snapshot(0)).rejects.toThrow(/closed/);
  });
});
