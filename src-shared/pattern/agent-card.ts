import { z } from 'zod';

/**
 * What Steward reads and shows of an A2A agent's card (issue 29): its name, description, version
 * and skills, as the CLI's validate and the editor's "Check agent card" show them. Read at the
 * process boundary from whatever the agent serves; anything missing is empty, anything long is refused.
 */
export const AgentCardView = z.object({
  name: z.string().min(1).max(300),
  description: z.string().max(4000).default(''),
  version: z.string().max(100).default(''),
  skills: z
    .array(z.object({ id: z.string().max(200).default(''), name: z.string().max(300).default(''), description: z.string().max(2000).default('') }))
    .max(100)
    .default([]),
});
export type AgentCardView = z.infer<typeof AgentCardView>;

/** `agent “Strict reviewer” 1.2.0 — Reviews drafts. Skills: review (Review a draft)`: one line. */
export function describeAgentCard(card: AgentCardView): string {
  const skills = card.skills.map((s) => `${s.id || s.name}${s.name && s.name !== s.id ? ` (${s.name})` : ''}`);
  return `agent “${card.name}”${card.version ? ` ${card.version}` : ''}${card.description ? ` — ${card.description}` : ''}${skills.length > 0 ? `. Skills: ${skills.join(', ')}` : ''}`;
}

/** The host's answer to "Check agent card": the card, or why it could not be read (nothing sent to a host the policy refuses). */
export const AgentCardCheck = z.discriminatedUnion('ok', [z.object({ ok: z.literal(true), card: AgentCardView }).strict(), z.object({ ok: z.literal(false), problem: z.string().min(1) }).strict()]);
export type AgentCardCheck = z.infer<typeof AgentCardCheck>;
