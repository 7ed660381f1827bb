import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ModelReply } from '../contracts/model';
import { TeacherVerdict } from '../contracts/verdict';
import { redactToolArguments } from '../util/redact';
import { boundaryInputs, FUZZ_RUNS, mutationsOf } from '../../test-support/fuzz-arbitraries';
import { ParsedCandidate, parseCandidate } from './parse-candidate';
import { READ_FILE, SEND_EMAIL, WRITE_FILE } from './testing/fixtures';
import { validateCandidate, ValidationResult } from './validation';
import { parseVerdict } from './verdict';

const snapshot = { round: 0, tools: [READ_FILE, WRITE_FILE, SEND_EMAIL], hash: 'fuzz' };
const DECISION = { decision_type: 'tool_call', tool_name: 'send_email', arguments: { to: 'a@b.c', body: 'hi' } };
const VERDICT = { verdict: 'replace', reason_codes: ['wrong_tool'], explanation: 'Use read.', replacement: DECISION };

/** What a model may send back as text: JSON of a (mutated) value, fenced, wrapped in prose, cut off, or anything at all. */
function textOf(seed: unknown): fc.Arbitrary<string> {
  const json = boundaryInputs([seed]).map((v) => JSON.stringify(v) ?? 'undefined');
  return fc.oneof(
    json,
    json.map((t) => `\`\`\`json\n${t}\n\`\`\``),
    fc.tuple(fc.string(), json, fc.string()).map(([a, t, b]) => `${a}${t}${b}`),
    fc.tuple(json, fc.nat()).map(([t, n]) => t.slice(0, n % (t.length + 1))),
    fc.string(),
  );
}

const noToolCalls = fc.constant<ModelReply['tool_calls']>([]);

const replies: fc.Arbitrary<ModelReply> = fc.record({
  text: textOf(DECISION),
  tool_calls: fc.oneof(
    noToolCalls,
    fc.array(fc.record({ name: fc.oneof(fc.constantFrom('send_email', 'write_file'), fc.string()), arguments: boundaryInputs([DECISION.arguments]) }), { maxLength: 3 }),
  ),
  model: fc.constant('fuzz'),
});

describe('the candidate and verdict parsers under arbitrary replies (property)', () => {
  it('any reply parses to a typed candidate whose validation is a typed result — never a throw', () => {
    fc.assert(
      fc.property(replies, (reply) => {
        const parsed = parseCandidate(reply);
        expect(ParsedCandidate.safeParse(parsed).success).toBe(true);
        if (parsed.parse_error !== undefined) expect(parsed.parse_error.length).toBeGreaterThan(0);
        expect(ValidationResult.safeParse(validateCandidate(parsed, snapshot).result).success).toBe(true);
        // Tracing the reply (redaction walks it) never throws either.
        redactToolArguments({ reply, parsed }, snapshot);
      }),
      FUZZ_RUNS,
    );
  });

  it('any teacher reply is a verdict that holds its rules, or a malformed one with a reason', () => {
    fc.assert(
      fc.property(fc.record({ text: textOf(VERDICT), tool_calls: noToolCalls, model: fc.constant('fuzz') }), (reply) => {
        const verdict = parseVerdict(reply);
        if (verdict.ok) expect(TeacherVerdict.safeParse(verdict.verdict).success).toBe(true);
        else expect(verdict.error.length).toBeGreaterThan(0);
      }),
      FUZZ_RUNS,
    );
  });

  it('a sensitive argument never survives redaction, however the candidate around it is malformed', () => {
    // Prefixed, so a value cannot coincide with a key of the record it is traced in ("arguments").
    const secret = fc.stringMatching(/^[A-Za-z0-9]{6,24}$/).map((s) => `pw-${s}`);
    const shapes = (value: string): fc.Arbitrary<ModelReply> => {
      const decision = { ...DECISION, arguments: { to: value, body: 'hi' } };
      const text = JSON.stringify(decision);
      const at = text.indexOf(value) + value.length;
      const reply = (text: string, tool_calls: ModelReply['tool_calls'] = []): ModelReply => ({ text, tool_calls, model: 'm' });
      return fc.oneof(
        mutationsOf(decision).map((d) => reply(`Here: ${JSON.stringify(d)} ok`)),
        fc.tuple(fc.string(), fc.string()).map(([a, b]) => reply(`${a}${text}${b}`)),
        fc.nat({ max: 40 }).map((n) => reply(text.slice(0, at + n))),
        fc.constant(reply('', [{ name: 'send_email', arguments: JSON.stringify(decision.arguments) }])),
        fc.constant(reply('', [{ name: 'send_email', arguments: decision.arguments }])),
      );
    };
    fc.assert(
      fc.property(secret.chain((value) => fc.tuple(fc.constant(value), shapes(value))), ([value, reply]) => {
        // A mutation may have replaced the value itself: only a reply that still carries it is a test.
        fc.pre(JSON.stringify(reply).includes(value));
        const parsed = parseCandidate(reply);
        const shown = JSON.stringify(redactToolArguments({ reply, parsed, issues: validateCandidate(parsed, snapshot).result.issues }, snapshot));
        expect(shown).not.toContain(value);
      }),
      FUZZ_RUNS,
    );
  });
});
