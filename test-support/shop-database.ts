import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type { HostedWorkflowInput } from '../src-shared/contracts/hosted-workflow';
import type { ScriptEntry } from '../src-shared/contracts/script';
import { POSTGRES_PACKAGE } from '../src-shared/policy/shipped-effects';
import { startPrivateCluster, type PrivateCluster } from './private-postgres';
import { thirdPartyHost } from './third-party-host';

/**
 * The shop database of the PostgreSQL MCP server tests, in a private cluster the file's tests share
 * (started before them, `pg_ctl stop` after them, also when one fails): a table `orders` of three
 * rows; the login role `reader` may only SELECT it, `clerk` may also INSERT. Their passwords are
 * random per run, so finding one anywhere is a leak.
 */
export function shopDatabase() {
  const passwords = { reader: `pw-${randomBytes(12).toString('hex')}`, clerk: `pw-${randomBytes(12).toString('hex')}` };
  const state: { cluster?: PrivateCluster } = {};
  beforeAll(async () => {
    const cluster = await startPrivateCluster();
    state.cluster = cluster;
    cluster.sql('postgres', `CREATE ROLE reader LOGIN PASSWORD '${passwords.reader}'; CREATE ROLE clerk LOGIN PASSWORD '${passwords.clerk}'; CREATE DATABASE shop;`);
    cluster.sql(
      'shop',
      `CREATE TABLE orders (id int PRIMARY KEY, customer text NOT NULL, total numeric NOT NULL);
       INSERT INTO orders VALUES (1, 'Ada', 12.5), (2, 'Grace', 40), (3, 'Linus', 7.25);
       GRANT SELECT ON orders TO reader;
       GRANT SELECT, INSERT ON orders TO clerk;`,
    );
  });
  afterAll(() => state.cluster?.stop());
  const cluster = (): PrivateCluster => {
    if (!state.cluster) throw new Error('the cluster did not start');
    return state.cluster;
  };
  return {
    passwords,
    cluster,
    orderCount: () => Number(cluster().sql('shop', 'SELECT count(*) FROM orders').trim()),
    /** The connection URL a person registers: no password in it. */
    url: (role: 'reader' | 'clerk') => `postgresql://${role}@127.0.0.1:${cluster().port}/shop`,
    /** A host with the shop database registered as `shop-db` for `role`, by package, its password stored in the keychain first. */
    async host(role: 'reader' | 'clerk', cleanups: Array<() => Promise<void> | void>) {
      const h = await thirdPartyHost(cleanups);
      await h.page.ok('credentials.set', { name: 'shop-db-password', value: passwords[role] });
      await h.page.ok('servers.register', {
        server: { id: 'shop-db', label: 'Shop database', package: POSTGRES_PACKAGE, args: [`postgresql://${role}@127.0.0.1:${cluster().port}/shop`], env: { PGPASSWORD: 'keychain:shop-db-password' } },
      });
      return h;
    },
  };
}

export const query = (sql: string): ScriptEntry => ({ json: { decision_type: 'tool_call', tool_name: 'query', arguments: { sql } } });
export const complete = (output: string): ScriptEntry => ({ json: { decision_type: 'complete', output } });

/** An agent answering from the shop database, risk-gated (phase 3: reads run unreviewed, protected effects — query is one — go to the teacher). */
export function shopAgent(student: ScriptEntry[], teacher: ScriptEntry[]): HostedWorkflowInput {
  return {
    format: 'steward/v1',
    kind: 'agent',
    id: 'shop-questions',
    name: 'Shop questions',
    instructions: 'Answer questions about the shop from its database; only read.',
    task: 'Which customer spent the most?',
    servers: [{ id: 'db', server: 'shop-db' }],
    supervision: { phase: 3 },
    script: { student, teacher },
  };
}
