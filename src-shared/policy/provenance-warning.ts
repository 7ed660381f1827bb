import type { SupervisionSpec } from '../contracts/spec';

/**
 * `steward validate`'s warning (issue 31): an agent that runs at phase 4 (Autonomous) with the
 * review rule `untrusted_provenance` turned off by its supervision profile. Not an error — a person
 * may mean it — but said in words: what could happen, and how to turn the rule back on.
 */
export function provenanceRuleWarning(supervision: Pick<SupervisionSpec, 'enabled' | 'phase' | 'rules'>, what: string): string | undefined {
  if (!supervision.enabled || supervision.phase !== 4 || supervision.rules.untrusted_provenance !== false) return undefined;
  return (
    `${what} runs at phase 4 (Autonomous) with the review rule "an argument carries a value from an untrusted tool result" turned off ` +
    '(untrusted_provenance: false in its supervision rules). A tool result can carry instructions written by someone else (a file, a web page, a stored note); ' +
    'a call the student copies them into then runs with no review at all. Turn the rule back on in its supervision profile ' +
    '(in the app: Supervision · "Review calls carrying values from untrusted tool results"; in a file: remove "untrusted_provenance": false from supervision.rules), or instead mark trusted only the servers whose results you alone write (steward servers trust ID trusted).'
  );
}
