/** A request the host refuses for what it asks (not a host failure): becomes that error code. */
export class RequestError extends Error {
  override readonly name = 'RequestError';
  constructor(
    readonly code: 'invalid_params' | 'not_found' | 'conflict' | 'forbidden',
    message: string,
  ) {
    super(message);
  }
}
