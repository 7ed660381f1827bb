import { runCli } from '../src-main/shells/cli/cli';

/** `steward ARGV` in-process on a data folder: its exit code and everything it wrote. */
export async function cliOn(dataDir: string, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: { STEWARD_DATA_DIR: dataDir } });
  return { code, stdout, stderr };
}
