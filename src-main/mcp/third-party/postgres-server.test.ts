import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEventOf } from '@shared/contracts/events';
import { POSTGRES_PACKAGE } from '@shared/policy/shipped-effects';
import { complete, query, shopAgent, shopDatabase } from '../../../test-support/shop-database';
import { accept, everyFileText, thirdPartyHost } from '../../../test-support/third-party-host';

/**
 * The PostgreSQL MCP server (@modelcontextprotocol/server-postgres 0.6.2) against Debian's
 * PostgreSQL: a private cluster in a temp folder on 127.0.0.1 (test-support/private-postgres.ts),
 * registered the way a person does it — by package, the connection URL without its password as the
 * argument, the password a keychain reference in PGPASSWORD (node-postgres reads it from there).
 * Real host, real keychain, real server; the student and teacher are scripted (the model boundary).
 * Its failures: postgres-failures.test.ts.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const shop = shopDatabase();

describe.skipIf(!process.env.DBUS_SESSION_BUS_ADDRESS)('the PostgreSQL MCP server, its password in the keychain (needs the OS keychain: a D-Bus session)', () => {
  it('is listed with query protected, and a supervised query answers from the table; the password is in no event, file or confirmation', async () => {
    const h = await shop.host('reader', cleanups);
    // The person approved the registration seeing the reference, never a password.
    expect(h.asked.find((r) => r.action === 'servers.register')?.detail).toBe(`package ${POSTGRES_PACKAGE} ${shop.url('reader')}\nenvironment: PGPASSWORD=keychain:shop-db-password`);

    // "Run a read-only SQL query", says the server; it is not (postgres-failures.test.ts): protected, so reviewed.
    const tools = await h.inspect('shop-db');
    expect(tools).toEqual([expect.objectContaining({ name: 'query', description: 'Run a read-only SQL query', effect: expect.objectContaining({ effect: 'irreversible_write' }), effect_source: 'shipped' })]);

    const run = await h.run(shopAgent([query('SELECT customer, total FROM orders ORDER BY total DESC LIMIT 1'), complete('Grace spent the most: 40.')], [accept('A SELECT on orders; nothing is written.')]));
    expect(run.finished).toMatchObject({ status: 'completed', output: 'Grace spent the most: 40.' });
    // The call went to the teacher before it ran, and ran once.
    const review = run.events.find((e): e is RunEventOf<'review.decided'> => e.type === 'review.decided' && e.round === 0);
    expect(review?.review).toEqual({ required: true, rule: 'protected_effect' });
    expect(run.events.filter((e) => e.type === 'verdict.received')).toHaveLength(1);
    expect(run.executions).toEqual([expect.objectContaining({ server: 'db', tool: 'query', ok: true, is_error: false })]);
    expect(JSON.parse(run.executions[0]?.content ?? '')).toEqual([{ customer: 'Grace', total: '40' }]);

    // The password reached the server only: not the events, the confirmations, or any file of the data folder.
    expect(JSON.stringify(run.events)).not.toContain(shop.passwords.reader);
    expect(JSON.stringify(h.asked)).not.toContain(shop.passwords.reader);
    expect(everyFileText(h.dataDir)).not.toContain(shop.passwords.reader);
    expect(readFileSync(join(h.dataDir, 'servers.json'), 'utf8')).toContain('"PGPASSWORD": "keychain:shop-db-password"');
  });

  it('the table schemas it offers as resources name the database without the password', async () => {
    const h = await shop.host('reader', cleanups);
    const inspected = await h.page.ok('mcp.inspect', { server: 'shop-db' });
    expect(inspected.resources).toEqual([expect.objectContaining({ uri: `postgres://reader@127.0.0.1:${shop.cluster().port}/orders/schema`, name: '"orders" database schema' })]);
  });
});

describe('registering the PostgreSQL server', () => {
  it('with the password inside the URL is refused before anyone is asked, and the refusal does not repeat it', async () => {
    const h = await thirdPartyHost(cleanups);
    const url = `postgresql://reader:${shop.passwords.reader}@127.0.0.1:${shop.cluster().port}/shop`;
    const frame = await h.page.call('servers.register', { server: { id: 'shop-db', label: 'Shop database', package: POSTGRES_PACKAGE, args: [url] } });
    expect(frame).toMatchObject({ ok: false, error: { code: 'invalid_params', message: expect.stringContaining('looks like a raw secret: store it in the OS keychain') } });
    expect(JSON.stringify(frame)).not.toContain(shop.passwords.reader);
    expect(h.asked).toEqual([]);
  });
});
