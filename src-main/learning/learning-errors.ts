/** A learning export that cannot go ahead (unreadable trace, not a trace, unwritable output): one clear message. */
export class LearningExportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LearningExportError';
  }
}
