// The MCP tools of the calendar and the day's dispatch (docs/api-contract.md §17, §20): show the calendar, and
// schedule, move, assign and complete a visit.
import {
  addVisitAssignee,
  createVisit,
  CreateVisitBody,
  listVisits,
  updateVisit,
  UpdateVisitBody,
  VISIT_STATUSES,
} from '../modules/visits/index.js';
import { id, num, objectSchema, page, pageFields, refOf, refsOf, type Tool } from './tool-kit.js';

export const VISIT_TOOLS: Tool[] = [
  {
    name: 'visit_calendar',
    title: 'Show the calendar',
    description:
      'The visits that overlap a window, in start order: whole local days (from_date to to_date, inclusive, in timezone; default the account’s zone) or instants (from, to). Filter by team member (assignee_id, comma-separated), unassigned, job, client, status or late. At most 62 days unless a member, job or client is given.',
    scope: 'visits:read',
    kind: 'read',
    input: {
      type: 'object',
      properties: {
        from_date: { type: 'string', format: 'date', description: 'First local day, YYYY-MM-DD.' },
        to_date: { type: 'string', format: 'date', description: 'Last local day, inclusive.' },
        timezone: { type: 'string', maxLength: 64, description: 'IANA zone of the days, e.g. America/Denver.' },
        from: { type: 'string', format: 'date-time', description: 'Window start, an instant (instead of days).' },
        to: { type: 'string', format: 'date-time', description: 'Window end, an instant, exclusive.' },
        assignee_id: { type: 'string', maxLength: 1850, description: 'Team member ids, comma-separated: any.' },
        unassigned: { type: 'boolean', description: 'true: only visits with nobody assigned.' },
        job_id: id('Only this job’s visits.'),
        client_id: id('Only this client’s visits.'),
        status: { type: 'string', maxLength: 200, description: `Comma-separated: ${VISIT_STATUSES.join(', ')}.` },
        late: { type: 'boolean', description: 'true: only visits still scheduled or en route after their end.' },
        ...pageFields,
      },
      additionalProperties: false,
    },
    run: async (ctx, args) => {
      const result = await listVisits(ctx, { ...args, limit: num(args.limit) ?? 10 } as never);
      return page(result, (visit) => visit);
    },
  },
  {
    name: 'schedule_visit',
    title: 'Schedule a visit',
    description:
      'Adds a visit to a job: at local_start (with duration_minutes or local_end, in timezone), at start_at, or all_day with start_date; without a time it is unscheduled. assignee_ids are active team members. The answer lists conflicts: other visits of the same people at that time.',
    scope: 'visits:write',
    customFields: 'visit',
    kind: 'write',
    input: objectSchema(CreateVisitBody),
    run: (ctx, args) => createVisit(ctx, args as never),
    touches: (args, result) => [
      ...refsOf('job', args.job_id),
      ...refsOf('team_member', ...(Array.isArray(args.assignee_ids) ? args.assignee_ids : [])),
      ...refOf('visit', result),
    ],
  },
  {
    name: 'reschedule_visit',
    title: 'Reschedule a visit',
    description:
      'Moves a visit to a new time, in one form: local_start with duration_minutes or local_end (and timezone); start_at with end_at or duration_minutes; or all_day with start_date and end_date. The answer lists conflicts.',
    scope: 'visits:write',
    kind: 'write',
    input: (() => {
      const update = objectSchema(UpdateVisitBody);
      const fields = [
        'timezone',
        'start_at',
        'end_at',
        'local_start',
        'local_end',
        'duration_minutes',
        'all_day',
        'start_date',
        'end_date',
      ];
      return {
        type: 'object' as const,
        properties: {
          visit_id: id('The visit to move.'),
          ...Object.fromEntries(fields.map((field) => [field, update.properties[field]])),
        },
        required: ['visit_id'],
        additionalProperties: false,
      };
    })(),
    run: (ctx, args) => {
      const { visit_id: visitId, ...time } = args;
      return updateVisit(ctx, String(visitId), time as never);
    },
    touches: (args) => refsOf('visit', args.visit_id),
  },
  {
    name: 'assign_visit',
    title: 'Assign someone to a visit',
    description:
      'Adds one active team member to a visit, keeping the others (nothing changes when already there). The answer lists conflicts.',
    scope: 'visits:write',
    kind: 'write',
    idempotent: true,
    input: {
      type: 'object',
      properties: { visit_id: id('The visit.'), team_member_id: id('The team member to add.') },
      required: ['visit_id', 'team_member_id'],
      additionalProperties: false,
    },
    run: async (ctx, args) => (await addVisitAssignee(ctx, String(args.visit_id), String(args.team_member_id))).visit,
    touches: (args) => [...refsOf('visit', args.visit_id), ...refsOf('team_member', args.team_member_id)],
  },
  {
    name: 'complete_visit',
    title: 'Complete a visit',
    description:
      'Marks a scheduled or in-progress visit completed, now or at completed_at (never in the future), with optional completion_notes.',
    scope: 'visits:write',
    kind: 'write',
    idempotent: true,
    input: {
      type: 'object',
      properties: {
        visit_id: id('The visit.'),
        completed_at: { type: 'string', format: 'date-time', description: 'When it was done; default now.' },
        completion_notes: { type: 'string', maxLength: 5000, description: 'What was done.' },
      },
      required: ['visit_id'],
      additionalProperties: false,
    },
    run: (ctx, args) =>
      updateVisit(ctx, String(args.visit_id), {
        status: 'completed',
        ...(args.completed_at !== undefined ? { completed_at: args.completed_at } : {}),
        ...(args.completion_notes !== undefined ? { completion_notes: args.completion_notes } : {}),
      } as never),
    touches: (args) => refsOf('visit', args.visit_id),
  },
];
