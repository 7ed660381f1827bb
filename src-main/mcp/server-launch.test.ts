import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpServerSpec } from '@shared/contracts/spec';
import { McpLaunchError } from './errors';
import { resolveLaunch, substituteVars } from './server-launch';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'steward-launch-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('resolveLaunch', () => {
  it('runs an installed package bin with this Node, no npx', () => {
    const launch = resolveLaunch(
      { id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'] },
      { vars: { workspace: dir }, cwd: dir },
    );
    expect(launch.command).toBe(process.execPath);
    expect(launch.args[0]).toMatch(/node_modules[\\/]@modelcontextprotocol[\\/]server-filesystem[\\/]dist[\\/]index\.js$/);
    expect(fs.existsSync(launch.args[0] as string)).toBe(true);
    expect(launch.args.slice(1)).toEqual([dir]);
    expect(launch).toMatchObject({ cwd: dir, packageName: '@modelcontextprotocol/server-filesystem' });
  });

  it('runs a command as given, with variables substituted in args and env', () => {
    const launch = resolveLaunch(
      { id: 'tool', command: '/usr/local/bin/my-mcp', args: ['--root', '${workspace}/data', 'plain'], env: { ROOT: '${workspace}', MODE: 'ro' } },
      { vars: { workspace: '/w' }, cwd: dir },
    );
    expect(launch).toEqual({ command: '/usr/local/bin/my-mcp', args: ['--root', '/w/data', 'plain'], env: { ROOT: '/w', MODE: 'ro' }, cwd: dir });
  });

  it('gives a server its keychain credentials at launch only, and refuses one that was not resolved', () => {
    const spec = { id: 'gh', command: 'gh-mcp', args: [], env: { GITHUB_TOKEN: 'keychain:github', MODE: 'ro' } };
    const launch = resolveLaunch(spec, { vars: {}, cwd: dir, credentials: new Map([['keychain:github', 'resolved-value-xyz']]) });
    expect(launch.env).toEqual({ GITHUB_TOKEN: 'resolved-value-xyz', MODE: 'ro' });
    expect(spec.env.GITHUB_TOKEN).toBe('keychain:github');
    expect(() => resolveLaunch(spec, { vars: {}, cwd: dir })).toThrow(/needs credential keychain:github in env\.GITHUB_TOKEN/);
  });

  it('names an unknown variable and where it was used', () => {
    expect(() => resolveLaunch({ id: 'fs', command: 'x', args: [], env: { HOME_DIR: '${home}' } }, { vars: { workspace: dir }, cwd: dir })).toThrow(
      /unknown variable \$\{home\} in env\.HOME_DIR of MCP server "fs" \(known: \$\{workspace\}\)/,
    );
    expect(() => substituteVars('${a}-${b}', { a: '1' }, 's', 'args[0]')).toThrow(McpLaunchError);
    expect(substituteVars('${a}-${a}', { a: '1' }, 's', 'args[0]')).toBe('1-1');
  });

  it('does not read variables from Object.prototype', () => {
    expect(() => substituteVars('${constructor}', {}, 's', 'args[0]')).toThrow(/unknown variable \$\{constructor\}/);
  });

  it('explains a package that is not installed', () => {
    expect(() => resolveLaunch({ id: 'x', package: '@example/not-installed-mcp-server', args: [] }, { vars: {}, cwd: dir })).toThrow(
      /package "@example\/not-installed-mcp-server" is not installed/,
    );
  });

  it('refuses a path dressed up as a package name', () => {
    expect(() => resolveLaunch({ id: 'x', package: '../../etc', args: [] }, { vars: {}, cwd: dir })).toThrow(/is not an npm package name/);
  });

  it('refuses a package without a bin', () => {
    expect(() => resolveLaunch({ id: 'x', package: 'zod', args: [] }, { vars: {}, cwd: dir })).toThrow(/package "zod" has no bin/);
  });
});

describe('inherit_env', () => {
  it('passes on exactly the host variables it names (no substitution); env given in the spec wins', () => {
    const hostEnv = { KEEP: '${workspace}', SECRET_THING: 'no', FN: '() { evil; }', OVERRIDDEN: 'host' };
    const launch = resolveLaunch(
      { id: 'tool', command: 'my-mcp', args: [], inherit_env: ['KEEP', 'FN', 'MISSING', 'OVERRIDDEN'], env: { OVERRIDDEN: 'spec' } },
      { vars: { workspace: '/w' }, cwd: dir, hostEnv },
    );
    expect(launch.env).toEqual({ KEEP: '${workspace}', OVERRIDDEN: 'spec' });
  });

  it('is refused on a remote (url) server and for a name that is not an environment variable', () => {
    expect(McpServerSpec.safeParse({ id: 'r', url: 'http://127.0.0.1:9/mcp', inherit_env: ['HOME'] }).error?.issues[0]?.message).toMatch(/remote \(url\) server inherits no environment/);
    expect(McpServerSpec.safeParse({ id: 's', command: 'x', inherit_env: ['NOT-A-NAME'] }).success).toBe(false);
    expect(McpServerSpec.safeParse({ id: 's', command: 'x', inherit_env: ['PGHOST'], timeouts: { call_ms: 120_000, tools: { query: 600_000 } } }).success).toBe(true);
  });
});
