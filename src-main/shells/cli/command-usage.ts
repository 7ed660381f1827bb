/**
 * One command's part of the `steward` usage: its synopsis lines (`  steward NAME …` and their
 * continuations) and its description block (`  NAME   …` up to the next command), then the exit
 * codes. Cut from the one usage text, so `steward NAME --help` never drifts from `steward --help`.
 * `optionsOf`: a command that takes another's options ("dry-run FILE [the run options]") lists them too.
 */
export function commandUsage(usage: string, name: string, optionsOf?: string): string {
  const lines = usage.split('\n');
  const block = (starts: (line: string) => boolean, continues: (line: string) => boolean): string[] => {
    const at = lines.findIndex(starts);
    if (at < 0) return [];
    const end = lines.findIndex((line, i) => i > at && !continues(line));
    return lines.slice(at, end < 0 ? undefined : end);
  };
  const synopsis = block((l) => l.startsWith(`  steward ${name} `) || l === `  steward ${name}`, (l) => /^ {5,}\S/.test(l));
  const description = block((l) => new RegExp(`^  ${name} {2,}\\S`).test(l), (l) => /^ {4,}\S/.test(l));
  const exit = lines.findIndex((l) => l.startsWith('Exit codes:'));
  const borrowed = optionsOf === undefined ? [] : ['', `The ${optionsOf} options:`, ...block((l) => new RegExp(`^  ${optionsOf} {2,}\\S`).test(l), (l) => /^ {4,}\S/.test(l)).slice(1)];
  return ['Usage:', ...synopsis, '', ...description, ...borrowed, ...(exit < 0 ? [] : ['', ...lines.slice(exit)])].join('\n');
}
