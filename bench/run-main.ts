/**
 * Runs a bench's `main` and exits: 0 when it settles, 1 (its error printed) when it throws. An explicit exit,
 * because MCP server processes and browser handles may still hold the event loop open.
 */
export function runMain(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
