/**
 * Test files that change what a whole process shares (the environment, a prototype, timers, the
 * D-Bus address the keychain's native module connects to once) or spy on a module: vitest.config.ts
 * runs each in a process of its own; every other file shares its worker's process and modules.
 * `own-process-files.test.ts` finds such files and fails until they are listed here.
 */
export const OWN_PROCESS_FILES = [
  'src-main/composition/host-keychain-unavailable.test.ts',
  'src-main/credentials/keychain-unavailable-run.test.ts',
  'src-main/events/journal-writer.test.ts',
  'src-main/events/run-history.test.ts',
  'src-main/mcp/oauth/app-sign-in.test.ts',
  'src-main/mcp/oauth/oauth-sign-in.test.ts',
  'src-main/mcp/tool-hygiene.test.ts',
  'src-main/providers/endpoint.test.ts',
  'src-main/providers/script-provider.test.ts',
  'src-main/shells/cli/cli-speech.test.ts',
  'src-main/shells/cli/command-usage.test.ts',
  'test-support/runs-deleted-everywhere.test.ts',
];

/** What makes a file change its process: assigning to the environment, a global or a prototype; vi's module mocks, spies, stubs and fake timers; chdir, umask. */
export const CHANGES_THE_PROCESS =
  /process\.env(\.[A-Z_]+|\[[^\]]+\])\s*=[^=]|delete process\.env|vi\.(mock|doMock|spyOn|stubEnv|stubGlobal|useFakeTimers)\b|Object\.defineProperty\(globalThis|globalThis\.[a-zA-Z_]+\s*=[^=]|process\.chdir|\.prototype\.[a-zA-Z_]+\s*=[^=]|process\.umask/;
