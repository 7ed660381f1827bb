import { resolve } from 'node:path';
import { defaultDataDir } from '../../util/data-dir';

/** The commands a running app takes over (issue 22): those that read or write the folder's history and runs. */
const FORWARDED = new Set(['run', 'dry-run', 'answer', 'runs', 'workflows', 'eval', 'trial', 'learning']);

/**
 * The data folder a command works on, when it is one the running app would run for it; undefined
 * for the others (help, validate, credentials, …), which always run here. Read as parseArgs
 * reads `--data-dir DIR` and `--data-dir=DIR`, up to a `--`.
 */
export function forwardedDataDir(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const [command, ...rest] = argv;
  if (command === undefined || !FORWARDED.has(command)) return undefined;
  // Of the evals only `eval verdicts` reads the history (issue 31); the suites run here.
  if (command === 'eval' && rest[0] !== 'verdicts') return undefined;
  // Of the learning commands only `learning promotion` reads the history; export reads trace files.
  if (command === 'learning' && rest[0] !== 'promotion') return undefined;
  let dataDir: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === '--') break;
    if (arg === '--help' || arg === '-h' || (i === 0 && arg === 'help')) return undefined;
    if (arg === '--data-dir') dataDir = rest[++i];
    else if (arg?.startsWith('--data-dir=')) dataDir = arg.slice('--data-dir='.length);
  }
  return resolve(cwd, dataDir ?? defaultDataDir(env));
}
