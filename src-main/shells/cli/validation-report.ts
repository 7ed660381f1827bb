export interface ValidationReport {
  lines: string[];
  /** The first problem found, as one clear message; absent when the spec is valid. */
  error?: string;
}

