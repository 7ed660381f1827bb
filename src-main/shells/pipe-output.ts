/**
 * Standard output or error as the CLI and the browser-run app write them: when the reader goes away
 * (`steward runs list | head -1`, a pager quit early, `npm start 2>&1 | head`), Node reports EPIPE as an
 * 'error' event, which unhandled kills the process with a stack trace (the app with its runs). Here the
 * closed stream is let go instead: later writes are dropped, and the command finishes what it was doing
 * (a run still completes and is recorded whole) with its own exit code; the app keeps running.
 */
export function pipeOutput(stream: NodeJS.WriteStream): (text: string) => void {
  let closed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    closed = true;
  });
  return (text) => {
    if (!closed) stream.write(text);
  };
}
