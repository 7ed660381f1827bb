import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { runAgent } from '../engine/run-agent';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { runCli } from '../shells/cli/cli';
import { leakProbe, plantedKeychain } from '../../test-support/planted-keychain';
import { tempNotesWorkspace } from '../../test-support/workspace';

/**
 * The secrets-never-leak probe (src-main/engine/secrets-never-leak.test.ts), carried through the
 * OTLP export: a secret planted in the real OS keychain reaches a real MCP server whose tool prints
 * it; the OTLP file and what a loopback collector receives hold the tool's result, masked, never the value.
 */
const { hasSessionBus, store, planted: PLANTED, server: plantedServer, plant } = plantedKeychain();

describe.skipIf(!hasSessionBus)('a planted keychain secret in an OTLP export (needs a D-Bus session with a Secret Service; skipped without one)', () => {
  it('never reaches the OTLP file nor the collector, though the tool result that printed it is exported (masked)', async () => {
    await plant(PLANTED);
    const ws = tempNotesWorkspace();
    const received: string[] = [];
    const collector = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => (received.push(Buffer.concat(chunks).toString('utf8')), res.writeHead(200).end('{}')));
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      const { spec, script } = leakProbe(plantedServer);
      const events: RunEvent[] = [];
      const result = await runAgent({ spec, specDir: ws.dir, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), credentials: store, script });
      expect(result.status, result.message).toBe('completed');

      const trace = join(ws.dir, 'run.jsonl');
      const out = join(ws.dir, 'run.otlp.json');
      writeFileSync(trace, events.map((e) => `${JSON.stringify(e)}\n`).join(''));
      const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
      let stderr = '';
      const code = await runCli(['trace', 'otlp', trace, '-o', out, '--endpoint', endpoint, '--data-dir', join(ws.dir, 'data')], {
        stdout: () => undefined,
        stderr: (t) => (stderr += t),
        env: {},
      });
      expect(code, stderr).toBe(0);

      const exported = readFileSync(out, 'utf8');
      expect(received).toEqual([exported]);
      expect(exported).toContain('execute_tool get-env');
      expect(exported).toContain('••••(keychain:planted-token)');
      expect(exported).not.toContain(PLANTED);
      expect(stderr).not.toContain(PLANTED);
    } finally {
      collector.close();
      ws.cleanup();
    }
  });
});
