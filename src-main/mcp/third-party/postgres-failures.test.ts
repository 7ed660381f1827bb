import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptEntry } from '@shared/contracts/script';
import { MALFORMED_REPLY } from '../mcp-tool-host';
import { complete, query, shopAgent, shopDatabase } from '../../../test-support/shop-database';
import { splitDetails } from '@shared/contracts/code-words';
import { POSTGRES_PACKAGE } from '@shared/policy/shipped-effects';
import { accept, thirdPartyHost } from '../../../test-support/third-party-host';

/**
 * What goes wrong with the PostgreSQL MCP server (server-postgres 0.6.2) in a supervised run, against
 * a private cluster (see postgres-server.test.ts for how it is registered). Two misbehaviours of the
 * server are named here: its `query` tool says "read-only", yet `COMMIT; …` ends its read-only
 * transaction and writes; and SQL of two statements makes it send a malformed reply (a text block
 * without its text) after the statements ran. Student and teacher are scripted (the model boundary).
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const shop = shopDatabase();

describe.skipIf(!process.env.DBUS_SESSION_BUS_ADDRESS)('the PostgreSQL MCP server failing (needs the OS keychain: a D-Bus session)', () => {
  it('an SQL error, a write the role may not make and a malformed reply each come back to the agent in words, and the run goes on', async () => {
    const h = await shop.host('reader', cleanups);
    const run = await h.run(
      shopAgent(
        [
          query('SELECT * FROM no_such_table'),
          query("COMMIT; INSERT INTO orders VALUES (98, 'Mallory', 1)"),
          query('SELECT customer FROM orders ORDER BY total DESC LIMIT 1'),
          query('SELECT count(*) FROM orders; SELECT max(total) FROM orders'),
          complete('Grace spent the most; the count could not be read.'),
        ],
        [accept('A read.'), accept('Let the database decide.'), accept('A read.'), accept('Two reads.')],
      ),
    );
    expect(run.finished).toMatchObject({ status: 'completed', output: 'Grace spent the most; the count could not be read.' });
    const [missing, refused, read, malformed] = run.executions;
    // PostgreSQL's own words, as the server's error answer.
    expect(missing).toMatchObject({ ok: true, is_error: true, content: expect.stringContaining('relation "no_such_table" does not exist') });
    expect(refused).toMatchObject({ ok: true, is_error: true, content: expect.stringContaining('permission denied for table orders') });
    expect(read).toMatchObject({ ok: true, is_error: false, content: expect.stringContaining('Grace') });
    // Two statements: the server answers `{ type: "text" }` without its text. One sentence, never the validator's dump.
    expect(malformed).toMatchObject({ ok: false, is_error: true, content: MALFORMED_REPLY, error: MALFORMED_REPLY });
    expect(JSON.stringify(run.executions)).not.toMatch(/invalid_union|invalid_type/);
    expect(shop.orderCount()).toBe(3);
    // Each outcome was in the next round's conversation: the student was asked again after every call.
    expect(run.events.filter((e) => e.type === 'round.started')).toHaveLength(5);
  });

  it('its "read-only" query writes after COMMIT (the server misbehaving): why Steward reviews every query; the reply says the call may have run, and it did', async () => {
    const h = await shop.host('clerk', cleanups);
    const run = await h.run(shopAgent([query("COMMIT; INSERT INTO orders VALUES (99, 'Mallory', 1)"), complete('Done.')], [accept('Scripted to let it through, to show what the server does.')]));
    expect(run.finished.status).toBe('completed');
    try {
      // The write happened although the tool runs SQL in a read-only transaction…
      expect(shop.orderCount()).toBe(4);
      expect(shop.cluster().sql('shop', 'SELECT customer FROM orders WHERE id = 99').trim()).toBe('Mallory');
    } finally {
      shop.cluster().sql('shop', 'DELETE FROM orders WHERE id = 99');
    }
    // …and the reply of two statements was malformed.
    expect(run.executions).toEqual([expect.objectContaining({ ok: false, content: MALFORMED_REPLY })]);
  });

  it('registered with no password, or a wrong one: the agent and the run read what to fix in words, the server text only in the details', async () => {
    const h = await thirdPartyHost(cleanups);
    await h.page.ok('servers.register', { server: { id: 'shop-db', label: 'Shop database', package: POSTGRES_PACKAGE, args: [shop.url('reader')] } });
    const none = await h.run(shopAgent([query('SELECT 1'), complete('No answer.')], [accept('A read.')]));
    const [noPassword] = none.executions;
    expect(noPassword).toMatchObject({ ok: true, is_error: true });
    expect(splitDetails(noPassword?.content ?? '').words).toMatch(/^The PostgreSQL server got no password, and the database asks for one\. Store the password in the keychain/);
    expect(noPassword?.content).not.toMatch(/^MCP error/);

    const h2 = await thirdPartyHost(cleanups);
    await h2.page.ok('credentials.set', { name: 'shop-db-wrong', value: 'not-the-password' });
    await h2.page.ok('servers.register', { server: { id: 'shop-db', label: 'Shop database', package: POSTGRES_PACKAGE, args: [shop.url('reader')], env: { PGPASSWORD: 'keychain:shop-db-wrong' } } });
    const wrong = await h2.run(shopAgent([query('SELECT 1'), complete('No answer.')], [accept('A read.')]));
    expect(splitDetails(wrong.executions[0]?.content ?? '')).toEqual({
      words: 'The database refused the password for role "reader". Check the password stored for this server\'s PGPASSWORD in the keychain (and the role in its connection URL), then run again.',
      details: 'MCP error -32603: password authentication failed for user "reader"',
    });
    expect(JSON.stringify(wrong.events)).not.toContain('not-the-password');
  });

  it('a teacher who blocks such a query keeps the table as it was, and the run says why', async () => {
    const h = await shop.host('clerk', cleanups);
    const block: ScriptEntry = { json: { verdict: 'block', reason_codes: ['unsafe_effect'], explanation: 'COMMIT then INSERT writes to the database; this agent only reads.' } };
    const run = await h.run(shopAgent([query("COMMIT; INSERT INTO orders VALUES (97, 'Mallory', 1)")], [block]));
    expect(run.executions).toEqual([]);
    expect(shop.orderCount()).toBe(3);
    expect(run.finished.status).not.toBe('completed');
    expect(run.finished.message).toMatch(/COMMIT then INSERT writes to the database/);
  });
});
