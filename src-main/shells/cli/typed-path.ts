import { resolve } from 'node:path';

/** A path the person typed, as the command's own process reads it (a forwarded command runs in the app, elsewhere). */
export const typedPath = (io: { cwd?: string }, path: string): string => (io.cwd === undefined ? path : resolve(io.cwd, path));
