import { z } from 'zod';

/**
 * An agent node's routes (seed 000: `reroute` is a control decision): the named output ports it
 * may send its task on instead of answering. A `reroute` decision names one, validated like a tool
 * name (offered this round, else a validation failure the teacher may repair). In a workflow only
 * the taken route's port sends (the agent's reason); its `output` and the other routes send
 * nothing, so what needs them is skipped as a skip prunes. A node with no routes keeps reroute as
 * a refusal: its run ends "rerouted" and its node fails.
 */

/** A route's name is its output port's name: usable in templates, never the agent's own `output`. */
export const RouteName = z
  .string()
  .regex(/^[a-z_][a-z0-9_]{0,63}$/, 'use lowercase letters, digits and _ (not first)')
  .refine((name) => name !== 'output', { message: '"output" is the agent\'s answer port: name the route otherwise' });

export const AgentRoute = z
  .object({
    name: RouteName,
    /** When to take it: the student and teacher read this. */
    description: z.string().max(300).optional(),
  })
  .strict();
export type AgentRoute = z.infer<typeof AgentRoute>;

export const MAX_ROUTES = 12;

export const AgentRoutes = z
  .array(AgentRoute)
  .max(MAX_ROUTES)
  .superRefine((routes, ctx) => {
    const seen = new Set<string>();
    routes.forEach((r, i) => {
      if (seen.has(r.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate route ${r.name}` });
      seen.add(r.name);
    });
  });
export type AgentRoutes = z.infer<typeof AgentRoutes>;

/**
 * Who chose the route that was taken: the student's own decision, the teacher proposing (phase 0,
 * a takeover), the teacher's replacement of a student decision (its repair), or a person.
 */
export const ROUTE_CHOOSERS = ['student', 'teacher', 'teacher_repair', 'person'] as const;
export const RouteChooser = z.enum(ROUTE_CHOOSERS);
export type RouteChooser = z.infer<typeof RouteChooser>;

export const ROUTE_CHOOSER_LABELS = {
  student: 'the student',
  teacher: 'the teacher',
  teacher_repair: "the teacher's repair",
  person: 'a person',
} satisfies Record<RouteChooser, string>;

/** The route an agent run took (on run.finished / agent.finished and its result). */
export const TakenRoute = z
  .object({
    name: z.string().min(1),
    chosen_by: RouteChooser,
    reason: z.string(),
  })
  .strict();
export type TakenRoute = z.infer<typeof TakenRoute>;

/** "took route billing (chosen by the student): the invoice is wrong" */
export function describeTakenRoute(route: TakenRoute): string {
  return `took route ${route.name} (chosen by ${ROUTE_CHOOSER_LABELS[route.chosen_by]})${route.reason.trim() !== '' ? `: ${route.reason}` : ''}`;
}

/** Who chose a round's selected decision, from who proposed and who selected it. */
export function routeChooser(proposer: 'student' | 'teacher', source: 'student' | 'teacher' | 'human'): RouteChooser {
  if (source === 'human') return 'person';
  if (source === 'teacher') return proposer === 'student' ? 'teacher_repair' : 'teacher';
  return 'student';
}
