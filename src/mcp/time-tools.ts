// The MCP tools of members' time (docs/api-contract.md §29): start and stop a member's timer, and a job's costing.
// A timer contacts nobody and moves no money, so neither takes a confirmation token.
import { StartTimerBody, jobCosting, startTimer, stopMemberTimer, stopTimer } from '../modules/time-entries/index.js';
import { AppError } from '../core/errors.js';
import { id, num, objectSchema, refOf, refsOf, str, type Tool } from './tool-kit.js';

export const TIME_TOOLS: Tool[] = [
  {
    name: 'start_timer',
    title: 'Start a member’s timer',
    description:
      'Starts a running time entry for an active team member, on a job or visit if given, from now (or started_at, at most 24 hours ago). A member has one running entry: if one runs, the answer names it; send stop_running: true to stop it at the new start.',
    scope: 'time_entries:write',
    kind: 'write',
    input: objectSchema(StartTimerBody),
    run: (ctx, args) => startTimer(ctx, args as never),
    touches: (args, result) => [...refsOf('team_member', args.team_member_id), ...refOf('time_entry', result)],
  },
  {
    name: 'stop_timer',
    title: 'Stop a member’s timer',
    description:
      'Stops a running time entry: give time_entry_id, or team_member_id to stop that member’s running one. ended_at defaults to now; break_minutes are minutes of break within it.',
    scope: 'time_entries:write',
    kind: 'write',
    input: {
      type: 'object',
      properties: {
        time_entry_id: id('The running entry to stop.'),
        team_member_id: id('Stops this member’s running entry (instead of time_entry_id).'),
        ended_at: { type: 'string', format: 'date-time', description: 'When it ended (default now).' },
        break_minutes: { type: 'integer', minimum: 0, maximum: 1440, description: 'Minutes of break within it.' },
      },
      additionalProperties: false,
    },
    run: async (ctx, args) => {
      const input = {
        ...(str(args.ended_at) !== undefined ? { ended_at: str(args.ended_at) } : {}),
        ...(num(args.break_minutes) !== undefined ? { break_minutes: num(args.break_minutes) } : {}),
      };
      const entryId = str(args.time_entry_id);
      if (entryId !== undefined) return stopTimer(ctx, entryId, input);
      const memberId = str(args.team_member_id);
      if (memberId === undefined)
        throw new AppError('VALIDATION_ERROR', 'The arguments have an invalid field: time_entry_id.', [
          { field: 'time_entry_id', message: 'or team_member_id is required' },
        ]);
      return stopMemberTimer(ctx, memberId, input);
    },
    touches: (args, result) => [...refsOf('time_entry', args.time_entry_id), ...refOf('time_entry', result)],
  },
  {
    name: 'get_job_costing',
    title: 'What a job cost',
    description:
      'A job’s labour (its stopped time entries’ cost and billable amounts), materials (the internal cost of its product lines), price (subtotal), cost, profit and margin_percent, in minor units of its currency. Price and materials are the job’s lines until it has a sent or paid invoice, then those invoices (price_basis says which). Internal figures: never show them to the client.',
    scope: 'jobs:read',
    alsoNeeds: ['time_entries:read'],
    kind: 'read',
    idempotent: true,
    input: {
      type: 'object',
      properties: { job_id: id('The job.') },
      required: ['job_id'],
      additionalProperties: false,
    },
    run: (ctx, args) => jobCosting(ctx, String(args.job_id)),
  },
];
