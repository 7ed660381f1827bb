import type { ReviewSample } from '../../mcp/reviewed-sampling';
import type { ReadLine } from './ask-at-terminal';

const SHOWN_CHARS = 2_000;

/**
 * `sampling: "ask"` at the terminal: the request (who asks, which model would answer, how long, the
 * conversation) is shown and the person says yes or no; allowed, the model's answer is shown and
 * the person says whether it goes back to the server. Without a person to type (no TTY, or
 * `--json`) each request is denied; outside --json a line says so.
 */
export function reviewSampleAt(io: { stderr: (text: string) => void; line?: ReadLine }, quiet: boolean): ReviewSample {
  return async (ask) => {
    const line = io.line;
    if (!line || quiet) {
      if (!quiet) io.stderr(`MCP server "${ask.server}" asked the run's model to answer; denied: sampling for it is "ask" and there is no terminal to ask you.\n`);
      return 'deny';
    }
    const shown = (text: string) => (text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}… (${text.length} characters)` : text);
    if (ask.reply === undefined) {
      io.stderr(`MCP server "${ask.server}" wants ${ask.model} to answer this (at most ${ask.max_tokens} tokens):\n`);
      for (const m of ask.messages) io.stderr(`  ${m.role}: ${shown(m.content)}\n`);
    } else io.stderr(`${ask.model} answered MCP server "${ask.server}":\n  ${shown(ask.reply)}\n`);
    for (;;) {
      const word = (await line(ask.reply === undefined ? 'Allow it? (yes / no): ' : 'Send this answer to the server? (yes / no): '))?.trim().toLowerCase();
      if (word === undefined || word === 'no' || word === 'n') return 'deny';
      if (word === 'yes' || word === 'y') return 'allow';
    }
  };
}
