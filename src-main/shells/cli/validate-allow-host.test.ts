import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nonLoopbackAddress, startRemoteMcpServer, type RemoteMcpServer } from '../../../test-support/remote-mcp-server';
import { EXIT, runCli } from './cli';

/**
 * `steward validate --allow-host HOST`: a document whose remote MCP server is on another host (this
 * machine's own non-loopback address, so a real SDK server answers) is refused as a run would refuse
 * it, and validates once the person allows that host, listing the server's tools.
 */
let server: RemoteMcpServer;
let dir: string;
const ip = nonLoopbackAddress();

beforeAll(async () => {
  server = await startRemoteMcpServer('streamable');
  dir = mkdtempSync(join(tmpdir(), 'steward-validate-allow-host-'));
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function validate(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['validate', ...args], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: { STEWARD_DATA_DIR: join(dir, 'data') } });
  return { code, stdout, stderr };
}

function write(name: string, doc: object): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

const agentSpec = (url: string) =>
  write('far-agent.json', {
    format: 'steward/v1',
    kind: 'agent',
    id: 'far-agent',
    name: 'Far',
    instructions: 'Use the far server.',
    task: 'Echo.',
    // Local models: validate starts no model, and the only host in question is the server's.
    models: { student: { provider: 'ollama', model: 'qwen3:4b' }, teacher: { provider: 'ollama', model: 'qwen3:4b' } },
    servers: [{ id: 'far', url }],
  });
const workflow = (url: string) =>
  write('far.workflow.json', {
    format: 'steward/v1',
    kind: 'workflow',
    id: 'far-flow',
    name: 'Far flow',
    servers: [{ id: 'far', url }],
    nodes: [
      { id: 'say', kind: 'tool', server: 'far', tool: 'echo', arguments: { text: 'hi' } },
      { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }] },
    ],
    edges: [{ from: { node: 'say', port: 'text' }, to: { node: 'out', port: 'said' } }],
  });

describe.skipIf(ip === undefined)('steward validate --allow-host HOST', () => {
  it('an agent spec whose remote server is on another host is refused without it, naming the host, and nothing is sent there', async () => {
    const before = server.requests.length;
    const { code, stderr } = await validate(agentSpec(server.url(ip)));
    expect(code).toBe(EXIT.badInput);
    expect(stderr).toContain(`would send this run's data to ${ip}:${server.port}, which the workspace privacy policy does not allow`);
    expect(server.requests.length).toBe(before);
  });

  it('with --allow-host naming that host (with or without its port) the agent spec validates and lists the server’s tools', async () => {
    for (const host of [`${ip}:${server.port}`, ip as string]) {
      const { code, stdout, stderr } = await validate(agentSpec(server.url(ip)), '--allow-host', host);
      expect(stderr).toBe('');
      expect(code).toBe(EXIT.ok);
      expect(stdout).toMatch(/^ {2}tool far\/echo: /m);
      expect(stdout).toMatch(/^valid: /m);
    }
  });

  it('a workflow whose tool node uses the remote server validates only with its host allowed; another allowed host does not count', async () => {
    const file = workflow(server.url(ip));
    const other = await validate(file, '--allow-host', 'mcp.example.com');
    expect(other.code).toBe(EXIT.badInput);
    expect(other.stderr).toMatch(/does not allow \(local only, plus mcp\.example\.com\)/);
    const allowed = await validate(file, '--allow-host', `${ip}:${server.port}`);
    expect(allowed.stderr).toBe('');
    expect(allowed.code).toBe(EXIT.ok);
    expect(allowed.stdout).toMatch(/^workflow: Far flow \(far-flow\), 2 nodes, 1 server\(s\)$/m);
    expect(allowed.stdout).toMatch(/^ {2}tool far\/echo: /m);
  });
});

describe('steward validate --help and a bad --allow-host', () => {
  it('--help says what --allow-host allows and exits 0; the top-level usage names the flag', async () => {
    const help = await validate('--help');
    expect(help.code).toBe(EXIT.ok);
    expect(help.stdout).toContain('Usage: steward validate FILE|NAME [--data-dir DIR] [--allow-host HOST]...');
    expect(help.stdout).toMatch(/--allow-host HOST {2}a remote \(url\) MCP server on HOST/);
    let usage = '';
    await runCli(['--help'], { stdout: (t) => (usage += t), stderr: () => undefined, env: {} });
    expect(usage).toContain('steward validate FILE|NAME [--data-dir DIR] [--allow-host HOST]...');
  });

  it('a URL given as the host is refused, saying what a host looks like, before anything is loaded', async () => {
    const { code, stderr } = await validate(join(dir, 'missing.json'), '--allow-host', 'https://mcp.example.com/mcp');
    expect(code).toBe(EXIT.badInput);
    expect(stderr).toContain('--allow-host takes a host name or host:port (e.g. mcp.example.com), not "https://mcp.example.com/mcp"');
  });
});
