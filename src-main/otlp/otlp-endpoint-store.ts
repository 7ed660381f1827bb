import { join } from 'node:path';
import { z } from 'zod';
import { readJsonFile, writeJsonAtomic } from '../registry/json-store';

const OtlpEndpointFile = z.object({ endpoint: z.string().min(1).max(2000) }).strict();

/**
 * The OTLP endpoint the app last sent a run to, kept in the data folder (`otlp-endpoint.json`) so
 * the next send offers it, whichever page or origin asks. Only an address the privacy check passed
 * is kept; a damaged file is a forgotten preference, never an error.
 */
export class OtlpEndpointStore {
  private readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'otlp-endpoint.json');
  }

  get(): string | undefined {
    try {
      return readJsonFile(this.path, OtlpEndpointFile.optional(), undefined)?.endpoint;
    } catch {
      return undefined;
    }
  }

  remember(endpoint: string): void {
    writeJsonAtomic(this.path, { endpoint });
  }
}
