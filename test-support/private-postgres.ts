import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { closedPort } from './closed-port';

/**
 * A private PostgreSQL cluster for a test (Debian's `postgresql`): initdb in a temp folder, listening
 * on 127.0.0.1 at an unused port with its unix socket in that folder, stopped with `pg_ctl stop`.
 * Host (TCP) logins need a password (scram-sha-256); the socket trusts the test's admin role, which
 * has no password and so cannot log in over TCP at all.
 *
 * PostgreSQL refuses to run as root, and CI runs as root: there the cluster belongs to `nobody`
 * (initdb and pg_ctl run through `runuser -u nobody`), and the test, still root, talks to it over
 * the socket and TCP like any client.
 */

export interface PrivateCluster {
  port: number;
  /** The folder holding data, socket and log. */
  dir: string;
  /** Runs SQL as the admin role over the unix socket (stdin: nothing lands in a process list). */
  sql(database: string, text: string): string;
  /** `pg_ctl stop`, then the folder is removed; safe to call twice. */
  stop(): void;
}

const BINARIES = ['initdb', 'pg_ctl', 'psql'] as const;
type Binary = (typeof BINARIES)[number];

/** Where initdb, pg_ctl and psql are: on PATH, else Debian's /usr/lib/postgresql/<version>/bin (newest first). */
export function postgresBinaries(): Record<Binary, string> | { missing: string } {
  const versioned = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql')
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
        .map((v) => join('/usr/lib/postgresql', v, 'bin'))
    : [];
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...versioned];
  const found: Partial<Record<Binary, string>> = {};
  for (const name of BINARIES) {
    const dir = dirs.find((d) => existsSync(join(d, name)));
    if (dir === undefined) return { missing: `PostgreSQL's ${name} is neither on PATH nor in /usr/lib/postgresql/*/bin (apt-get install postgresql)` };
    found[name] = join(dir, name);
  }
  return found as Record<Binary, string>;
}

/** The account the cluster runs as when this process is root (PostgreSQL refuses root). */
const RUN_AS = 'nobody';

function asOwner(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', RUN_AS, '--', command, ...args]] : [command, args];
}

function run(command: string, args: string[], options: SpawnSyncOptions & { what: string }): string {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000, ...options });
  if (result.error) throw new Error(`${options.what}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${options.what} exited ${result.status}: ${String(result.stderr).trim() || String(result.stdout).trim()}`);
  return String(result.stdout);
}

function numericId(flag: '-u' | '-g', name: string): number {
  return Number(run('id', [flag, name], { what: `id ${flag} ${name}` }).trim());
}

/** Starts a fresh cluster with an admin role `admin`; throws (after cleaning up) when it cannot. */
export async function startPrivateCluster(): Promise<PrivateCluster> {
  const bins = postgresBinaries();
  if ('missing' in bins) throw new Error(bins.missing);
  const dir = mkdtempSync(join(tmpdir(), 'steward-pg-'));
  const data = join(dir, 'data');
  const log = join(dir, 'postgres.log');
  mkdirSync(data, { mode: 0o700 });
  if (process.getuid?.() === 0) {
    const uid = numericId('-u', RUN_AS);
    const gid = numericId('-g', RUN_AS);
    for (const path of [dir, data]) chownSync(path, uid, gid);
  }
  const port = await closedPort();
  let started = false;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', stop);
    if (started) {
      const [cmd, args] = asOwner(bins.pg_ctl, ['stop', '-D', data, '-m', 'fast', '-w', '-t', '20']);
      spawnSync(cmd, args, { cwd: dir, timeout: 30_000 });
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const [initCmd, initArgs] = asOwner(bins.initdb, ['-D', data, '-U', 'admin', '--auth-host=scram-sha-256', '--auth-local=trust', '-E', 'UTF8', '--no-locale', '-N']);
    run(initCmd, initArgs, { cwd: dir, what: 'initdb' });
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c synchronous_commit=off`;
    const [ctlCmd, ctlArgs] = asOwner(bins.pg_ctl, ['start', '-D', data, '-l', log, '-w', '-t', '20', '-o', options]);
    started = true;
    try {
      run(ctlCmd, ctlArgs, { cwd: dir, what: 'pg_ctl start' });
    } catch (error) {
      const tail = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '';
      throw new Error(`${(error as Error).message}\n${tail}`);
    }
  } catch (error) {
    stop();
    throw error;
  }
  // A worker that dies before its afterAll still stops the cluster (spawnSync works in an exit handler).
  process.once('exit', stop);
  const sql = (database: string, text: string) =>
    run(bins.psql, ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', dir, '-p', String(port), '-U', 'admin', '-d', database], { input: text, what: `psql ${database}` });
  return { port, dir, sql, stop };
}
