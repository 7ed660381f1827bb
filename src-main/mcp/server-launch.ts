import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { McpServerSpec } from '@shared/contracts/spec';
import { substituteVars as substitute, UnknownVariableError } from '@shared/util/substitute';
import { isCredentialRef } from '@shared/contracts/credentials';
import { McpLaunchError } from './errors';

/** How to spawn one stdio server. */
export interface ServerLaunch {
  command: string;
  args: string[];
  /** Extra environment (the SDK adds a safe default set: PATH, HOME...). */
  env: Record<string, string>;
  cwd: string;
  /** The npm package it runs, when the spec named one: the effect registry keys on it. */
  packageName?: string;
}

export interface LaunchOptions {
  /** Values for `${name}` in args and env, e.g. `{ workspace: '/abs/folder' }`. */
  vars: Readonly<Record<string, string>>;
  cwd: string;
  /** Resolved `keychain:NAME` values: env values that are references get them, at launch only. */
  credentials?: ReadonlyMap<string, string>;
  /** The host environment `inherit_env` reads from (default: this process's). */
  hostEnv?: Readonly<Record<string, string | undefined>>;
}

/**
 * Turns a spec into a process to spawn. A `package` runs its installed `bin` with this Node (no npx,
 * nothing downloaded); a `command` runs as given.
 */
export function resolveLaunch(spec: McpServerSpec, options: LaunchOptions): ServerLaunch {
  const args = spec.args.map((arg, i) => substituteVars(arg, options.vars, spec.id, `args[${i}]`));
  const env: Record<string, string> = inheritedEnv(spec.inherit_env ?? [], options.hostEnv ?? process.env);
  for (const [key, value] of Object.entries(spec.env ?? {})) {
    if (isCredentialRef(value)) {
      const secret = options.credentials?.get(value);
      if (secret === undefined) throw new McpLaunchError(spec.id, `MCP server "${spec.id}" needs credential ${value} in env.${key}, and it was not resolved`);
      env[key] = secret;
    } else {
      env[key] = substituteVars(value, options.vars, spec.id, `env.${key}`);
    }
  }

  if (spec.package !== undefined) {
    const script = resolvePackageBin(spec.package, spec.id);
    // Inside Electron, execPath is the Electron binary: this makes it behave as plain Node.
    if (process.versions.electron !== undefined) env.ELECTRON_RUN_AS_NODE = '1';
    return { command: process.execPath, args: [script, ...args], env, cwd: options.cwd, packageName: spec.package };
  }
  if (spec.command !== undefined) return { command: spec.command, args, env, cwd: options.cwd };
  // The spec schema already refuses this; kept so a hand-built spec fails clearly too.
  throw new McpLaunchError(spec.id, `MCP server "${spec.id}" needs a package or a command`);
}

/**
 * The host variables a spec's `inherit_env` names, taken as they are (no `${}` substitution). The
 * SDK adds only its minimal set (PATH, HOME…) by itself, so a server sees nothing else of the host;
 * unset names are skipped, and so is a shell function exported as a variable, as the SDK does.
 */
export function inheritedEnv(names: readonly string[], hostEnv: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of names) {
    const value = Object.hasOwn(hostEnv, name) ? hostEnv[name] : undefined;
    if (value !== undefined && !value.startsWith('()')) env[name] = value;
  }
  return env;
}

/** Substitutes `${name}` in one launch field; an unknown name fails the launch, saying where. */
export function substituteVars(text: string, vars: Readonly<Record<string, string>>, serverId: string, where: string): string {
  try {
    return substitute(text, vars, `${where} of MCP server "${serverId}"`);
  } catch (error) {
    if (error instanceof UnknownVariableError) throw new McpLaunchError(serverId, error.message);
    throw error;
  }
}

const PACKAGE_NAME = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i;

/**
 * Absolute path of a package's bin script. Looked up next to this module and from the working
 * directory: once bundled into out/main, `import.meta.url` points there, and the project root
 * works either way.
 */
export function resolvePackageBin(packageName: string, serverId: string): string {
  // A name, not a path: `../x` would resolve relative to this module.
  if (!PACKAGE_NAME.test(packageName)) throw new McpLaunchError(serverId, `"${packageName}" is not an npm package name`);
  const manifestPath = findManifest(packageName);
  if (manifestPath === undefined) {
    throw new McpLaunchError(serverId, `package "${packageName}" is not installed (run npm install ${packageName})`);
  }
  const manifest = readManifest(manifestPath, packageName, serverId);
  const bin = pickBin(manifest.bin, packageName, serverId);
  const script = path.resolve(path.dirname(manifestPath), bin);
  if (!existsSync(script)) throw new McpLaunchError(serverId, `package "${packageName}" bin ${bin} is missing (${script})`);
  return script;
}

function findManifest(packageName: string): string | undefined {
  const bases = [import.meta.url, path.join(process.cwd(), 'package.json')];
  for (const base of bases) {
    // Node's own lookup folders, not resolve(): a package whose `exports` leaves out ./package.json
    // (server-pdf) cannot be resolved by that path, yet is installed all the same.
    const folders = createRequire(base).resolve.paths(packageName) ?? [];
    const manifest = folders.map((folder) => path.join(folder, packageName, 'package.json')).find((file) => existsSync(file));
    if (manifest !== undefined) return manifest;
  }
  return undefined;
}

function readManifest(manifestPath: string, packageName: string, serverId: string): { bin?: unknown } {
  try {
    const parsed: unknown = JSON.parse(readFileSync(manifestPath, 'utf8'));
    if (parsed !== null && typeof parsed === 'object') return parsed as { bin?: unknown };
  } catch {
    // fall through to the error below
  }
  throw new McpLaunchError(serverId, `package "${packageName}" has an unreadable package.json (${manifestPath})`);
}

/** `bin` is a path or a name → path map; with several, the one named like the package wins. */
function pickBin(bin: unknown, packageName: string, serverId: string): string {
  if (typeof bin === 'string' && bin.length > 0) return bin;
  if (bin !== null && typeof bin === 'object') {
    const entries = Object.entries(bin).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1].length > 0);
    const unscoped = packageName.replace(/^@[^/]+\//, '');
    const named = entries.find(([name]) => name === unscoped);
    if (named) return named[1];
    const only = entries.length === 1 ? entries[0] : undefined;
    if (only) return only[1];
    if (entries.length > 1) {
      throw new McpLaunchError(serverId, `package "${packageName}" has several bins (${entries.map(([n]) => n).join(', ')}); use command instead`);
    }
  }
  throw new McpLaunchError(serverId, `package "${packageName}" has no bin to run as an MCP server`);
}
