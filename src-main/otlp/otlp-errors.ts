/** A trace that cannot be exported, or an export that cannot be sent: the message says what to do. */
export class OtlpExportError extends Error {
  override name = 'OtlpExportError';
}
