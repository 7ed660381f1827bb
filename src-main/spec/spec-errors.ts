/** A problem with the user's input (spec file, script, variables): reported as one clear message. */
export class SpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SpecError';
  }
}
