import type { IncomingMessage } from 'node:http';

/** A request to one of the model-boundary test doubles, read whole: path, method and JSON body. */
export interface JsonRequest {
  method: string;
  path: string;
  body: unknown;
  /** The body was not empty and not JSON (the doubles answer 400, as the real servers do). */
  badJson: boolean;
}

export function readJsonRequest(req: IncomingMessage): Promise<JsonRequest> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      let badJson = false;
      if (text !== '') {
        try {
          body = JSON.parse(text);
        } catch {
          badJson = true;
        }
      }
      resolve({ method: req.method ?? 'GET', path: (req.url ?? '/').split('?')[0] ?? '/', body, badJson });
    });
  });
}
