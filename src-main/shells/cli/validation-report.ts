export interface ValidationReport {
  lines: string[];
  /** The first problem found, as one clear message; absent when the spec is valid. */
  error?: string;
  /** What is valid but risky, in words (printed as warnings; the exit code stays 0). */
  warnings?: string[];
}

