import { z } from 'zod';
import { MASK } from '../util/mask';

/**
 * One tool call sent to a remote MCP server (a `url` entry), as the run's privacy log records it
 * (issue 13), like a model call: which server and host, the tool, the argument names with every
 * value masked, and the bytes sent — never the values themselves.
 */
export const McpCalled = z
  .object({
    server: z.string(),
    tool: z.string(),
    /** `name[:port]` the call went to: never user info, path or query. */
    host: z.string(),
    /** Loopback: it stayed on this machine. */
    local: z.boolean(),
    /** Each argument name, its value masked. */
    arguments: z.record(z.string(), z.literal(MASK)),
    /** UTF-8 bytes of the call's name and arguments as JSON. */
    bytes: z.number().int().nonnegative(),
  })
  .strict();
export type McpCalled = z.infer<typeof McpCalled>;

/** What the ledger keeps of a call's arguments: their names only. */
export function maskedArgumentNames(args: Readonly<Record<string, unknown>>): Record<string, typeof MASK> {
  return Object.fromEntries(Object.keys(args).map((key) => [key, MASK]));
}
