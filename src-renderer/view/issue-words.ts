import type { z } from 'zod';

/**
 * A schema issue as a person reads it beside its field. A message the schema was given in words
 * (our own rules: "a credential name uses letters…") is kept; Zod's built-in text ("Too small:
 * expected string to have >=1 characters", "Invalid input: expected string, received undefined")
 * becomes a short sentence.
 */
export function issueInWords(issue: z.core.$ZodIssue): string {
  const builtIn = /^(?:Invalid|Too (?:small|big)|Expected|Unrecognized|Required)/.test(issue.message);
  if (!builtIn) return issue.message;
  switch (issue.code) {
    case 'too_small':
      return issue.origin === 'string' && Number(issue.minimum) <= 1 ? 'This is required.' : issue.origin === 'string' ? `This needs at least ${String(issue.minimum)} characters.` : `This needs at least ${String(issue.minimum)}.`;
    case 'too_big':
      return issue.origin === 'string' ? `This is too long (at most ${String(issue.maximum)} characters).` : `This allows at most ${String(issue.maximum)}.`;
    case 'invalid_type':
      return /received undefined/.test(issue.message) ? 'This is required.' : 'This does not hold the right kind of value.';
    case 'invalid_format':
      return issue.format === 'url' ? 'This is not a valid address (e.g. https://example.com/mcp).' : 'This is not in the expected form.';
    case 'unrecognized_keys':
      return `Not a setting Steward knows: ${issue.keys.join(', ')}.`;
    case 'invalid_value':
      return `Choose one of: ${issue.values.map(String).join(', ')}.`;
    default:
      return 'This is not valid.';
  }
}
