import type { ReviewSample } from '../../mcp/reviewed-sampling';
import type { ReadLine } from './ask-at-terminal';

const SHOWN_CHARS = 2_000;

/**
 * `sampling: "ask"` at the terminal: the request (who asks, which model would answer, how long, the
 * conversation) is shown and the person says yes or no. Without a person to type (no TTY, or
 * `--json`) each request is denied; outside --json a line says so.
 */
export function reviewSampleAt(io: { stderr: (text: string) => void; line?: ReadLine }, quiet: boolean): ReviewSample {
  return async (ask) => {
    const line = io.line;
    if (!line || quiet) {
      if (!quiet) io.stderr(`MCP server "${ask.server}" asked the run's model to answer; denied: sampling for it is "ask" and there is no terminal to ask you.\n`);
      return 'deny';
    }
    io.stderr(`MCP server "${ask.server}" wants ${ask.model} to answer this (at most ${ask.max_tokens} tokens):\n`);
    for (const m of ask.messages) io.stderr(`  ${m.role}: ${m.content.length > SHOWN_CHARS ? `${m.content.slice(0, SHOWN_CHARS)}… (${m.content.length} characters)` : m.content}\n`);
    for (;;) {
      const word = (await line('Allow it? (yes / no): '))?.trim().toLowerCase();
      if (word === undefined || word === 'no' || word === 'n') return 'deny';
      if (word === 'yes' || word === 'y') return 'allow';
    }
  };
}
