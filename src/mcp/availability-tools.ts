// The MCP tools of booking (docs/api-contract.md §28): find a few slots, hold one, confirm it with the person,
// book it. Booking contacts nobody and moves no money, so it takes no confirmation token; it is idempotent by
// its hold (a repeat with a spent hold answers the same visit).
import {
  AvailabilityQuery,
  bookHold,
  CreateHoldBody,
  createHold,
  findHoldOfKey,
  listSlots,
} from '../modules/availability/index.js';
import { createJob } from '../modules/jobs/index.js';
import { getVisit } from '../modules/visits/index.js';
import { AppError } from '../core/errors.js';
import { id, num, objectSchema, page, refOf, refsOf, str, type Tool } from './tool-kit.js';

const FLOW =
  'Booking goes: find_slots, offer the person two or three of the times (not the whole list), hold_slot the one they choose, confirm the held time with the person, then book_slot.';

export const AVAILABILITY_TOOLS: Tool[] = [
  {
    name: 'find_slots',
    title: 'Find bookable times',
    description: `Times at which a crew is free for work of duration_minutes (or a product's length), within whole local days (from_date to to_date, at most 31, in timezone; default the property's zone, then the account's) or instants (from, to). Give property_id so travel is counted. Each slot has start_at, local_start and team_member_ids (the crew offered). ${FLOW}`,
    scope: 'availability:read',
    kind: 'read',
    input: (() => {
      const schema = objectSchema(AvailabilityQuery);
      schema.properties.limit = {
        type: 'integer',
        minimum: 1,
        maximum: 25,
        default: 5,
        description: 'How many slots to answer, 1 to 25 (default 5: offer a few).',
      };
      return schema;
    })(),
    run: async (ctx, args) =>
      page(await listSlots(ctx, { ...args, limit: num(args.limit) ?? 5 } as never), (slot) => slot),
  },
  {
    name: 'hold_slot',
    title: 'Hold a time',
    description: `Keeps a slot for this key for expires_in_seconds (default 600) while you confirm it with the person: give its start_at, the same duration_minutes (or product_id), property_id and its team_member_ids. Nobody else can take it meanwhile; if it was taken since find_slots, the answer says who is not free and why — offer another time. ${FLOW}`,
    scope: 'availability:write',
    kind: 'write',
    input: objectSchema(CreateHoldBody),
    run: (ctx, args) => createHold(ctx, args as never),
    // A repeat answers the same hold only while it is as this call left it (not released, booked or expired).
    touches: (args, result) => [
      ...refsOf('team_member', ...(Array.isArray(args.team_member_ids) ? args.team_member_ids : [])),
      ...refOf('availability_hold', result),
    ],
  },
  {
    name: 'book_slot',
    title: 'Book a held time',
    description: `Makes the visit from a hold (only after the person confirmed the time): {hold_id, job_id} for an existing job, or {hold_id, client_id, title, property_id} to make the job too (that needs jobs:write). The visit gets the hold's time, zone and crew. Calling it again with a booked hold answers the same visit; dry_run says whether the hold would book. It contacts nobody and moves no money. ${FLOW}`,
    scope: 'visits:write',
    kind: 'write',
    idempotent: true,
    input: {
      type: 'object',
      properties: {
        hold_id: id('The hold from hold_slot.'),
        job_id: id('The job the visit belongs to; or give client_id and title to make one.'),
        client_id: id('Makes a new job for this client (with title), instead of job_id.'),
        title: { type: 'string', minLength: 1, maxLength: 200, description: 'The new job’s title (with client_id).' },
        property_id: id('The new job’s property (with client_id): the hold’s property, if it has one.'),
        instructions: { type: 'string', maxLength: 5000, description: 'Notes for the crew on the visit.' },
      },
      required: ['hold_id'],
      additionalProperties: false,
    },
    needsFor: (args) => (args.client_id !== undefined ? ['jobs:write'] : []),
    run: async (ctx, args) => {
      const holdId = String(args.hold_id);
      const hold = ctx.actor.id === null ? undefined : await findHoldOfKey(ctx.db, ctx.accountId, ctx.actor.id, holdId);
      // Idempotent by hold: a booked one answers its visit.
      if (hold?.visit_id) return getVisit(ctx, hold.visit_id);
      let jobId = str(args.job_id);
      if (jobId === undefined) {
        const clientId = str(args.client_id);
        if (clientId === undefined) return Promise.reject(validation('job_id', 'or client_id with title is required'));
        const job = await createJob(ctx, {
          client_id: clientId,
          title: str(args.title) ?? 'Booked visit',
          ...(str(args.property_id) !== undefined ? { property_id: str(args.property_id) } : {}),
        } as never);
        jobId = job.id;
      }
      return bookHold(ctx, {
        job_id: jobId,
        hold_id: holdId,
        ...(str(args.instructions) !== undefined ? { instructions: str(args.instructions) } : {}),
      } as never);
    },
    touches: (args, result) => [
      ...refsOf('availability_hold', args.hold_id),
      ...refsOf('job', args.job_id),
      ...refOf('visit', result),
    ],
  },
];

function validation(field: string, message: string) {
  return new AppError('VALIDATION_ERROR', `The arguments have an invalid field: ${field}.`, [{ field, message }]);
}
