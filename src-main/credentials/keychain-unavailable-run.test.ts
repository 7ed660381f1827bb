import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { messageParts, splitDetails } from '@shared/contracts/code-words';
import { FILESYSTEM_PACKAGE } from '@shared/policy/shipped-effects';
import { tempNotesSpec } from '../../test-support/workspace';
import { EXIT, runCli } from '../shells/cli/cli';

/**
 * Issue 28: "Platform failure: DBus error…" is not what a person reads when a run needs a key and
 * the OS keychain fails. A machine with no Secret Service: the real keychain store (the CLI's own),
 * on a session bus that does not exist. Each test file runs in its own process (vitest forks) and the
 * keychain library connects on first use, so pointing the bus away before any run is that machine.
 */
beforeAll(() => {
  process.env.DBUS_SESSION_BUS_ADDRESS = 'unix:path=/nonexistent/steward-no-secret-service';
});

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

/** What a person must not have to read: the keychain library's and the bus's internals, an error class. */
const INTERNALS = /zbus|d-?bus|unix:path|os error|platform failure|CredentialStoreError|\bat .+:\d+:\d+/i;

async function cli(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} });
  return { code, stdout, stderr };
}

describe.runIf(process.platform === 'linux')('a run that needs a key while the OS keychain does not answer', () => {
  it('an agent run says what happened and what to do, naming the key by what it is for; the keychain\'s own reason is kept as details', async () => {
    const spec = tempNotesSpec();
    cleanups.push(spec.cleanup);
    const doc = JSON.parse(readFileSync(spec.file, 'utf8')) as { models: Record<string, unknown> };
    // A local OpenAI-compatible teacher (allowed by the local-only privacy default) whose key is in the keychain.
    doc.models.teacher = { provider: 'openai_compatible', base_url: 'http://127.0.0.1:9/v1', model: 'local-teacher', api_key: 'keychain:openai' };
    writeFileSync(spec.file, JSON.stringify(doc));

    const run = await cli(['run', spec.file, '--json', '--data-dir', spec.dataDir]);
    // The run could not start (as any setup problem: exit 2); it is recorded, failed, with the words.
    expect(run.code, run.stdout + run.stderr).toBe(EXIT.badInput);
    const result = JSON.parse(run.stdout) as { status: string; message: string };
    expect(result.status).toBe('failed');
    const { words, details } = splitDetails(result.message);
    expect(words).toBe(
      'The system keychain did not answer, so Steward could not read the API key of the teacher model local-teacher (keychain:openai). ' +
        'Start or unlock your keychain (on Linux, GNOME Keyring, KWallet or another Secret Service running in your desktop session) and run again.',
    );
    expect(words).not.toMatch(INTERNALS);
    // The raw reason is not lost: the app shows it one click away, the terminal prints it after the words.
    expect(details).toMatch(/d-?bus|zbus/i);

    // At a terminal: the words first, the keychain's own reason after them.
    const plain = await cli(['run', spec.file, '--data-dir', spec.dataDir]);
    expect(plain.stderr).toMatch(/^steward: The system keychain did not answer, so Steward could not read the API key of the teacher model local-teacher \(keychain:openai\)\. .* \(details: .*DBus.*\)$/m);
  });

  it('a workflow whose server needs a token: the node and the run say it in words (no code, no bus address), the reason as details', async () => {
    const spec = tempNotesSpec();
    cleanups.push(spec.cleanup);
    const file = join(spec.dir, 'read.workflow.json');
    writeFileSync(
      file,
      JSON.stringify({
        format: 'steward/v1',
        kind: 'workflow',
        id: 'read-with-token',
        name: 'Read with a token',
        servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: [spec.workspace], env: { FS_TOKEN: 'keychain:fs-token' } }],
        nodes: [
          { id: 'in', kind: 'input', fields: [{ name: 'path', type: 'text' }] },
          { id: 'read', kind: 'tool', server: 'fs', tool: 'read_text_file', inputs: [{ name: 'path', type: 'text' }], arguments: { path: '{{path}}' } },
          { id: 'out', kind: 'output', fields: [{ name: 'text', type: 'text' }] },
        ],
        edges: [
          { from: { node: 'in', port: 'path' }, to: { node: 'read', port: 'path' } },
          { from: { node: 'read', port: 'text' }, to: { node: 'out', port: 'text' } },
        ],
      }),
    );
    const run = await cli(['run', file, '--input', `path=${join(spec.workspace, 'monday.md')}`, '--json', '--data-dir', spec.dataDir]);
    expect(run.code, run.stderr).toBe(EXIT.runNotCompleted);
    const result = JSON.parse(run.stdout) as { status: string; message: string; invocations: Array<{ id: string; failure?: { code: string; message: string } }> };
    expect(result.status).toBe('failed');
    const parts = messageParts(result.message);
    expect(parts.codeWords).toBe('the tool is not available');
    expect(parts.words).toMatch(/The system keychain did not answer, so Steward could not read server fs's FS_TOKEN \(keychain:fs-token\)\. Start or unlock your keychain/);
    expect(parts.words).not.toMatch(INTERNALS);
    expect(parts.details).toMatch(/d-?bus|zbus/i);
    const node = result.invocations.find((i) => i.id === 'read');
    expect(node?.failure?.code).toBe('tool_unavailable');
    expect(splitDetails(node?.failure?.message ?? '').words).not.toMatch(INTERNALS);
  });
});
