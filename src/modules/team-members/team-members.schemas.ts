// Team member shapes (docs/api-contract.md §15): the people a business sends out. A member is a label on
// the work (members do not log in); the single source of validation, serialization, types and OpenAPI.
import { customFieldFilterOptions } from '../custom-fields/index.js';
import { Type, type Static } from '@sinclair/typebox';
import {
  CustomFieldValuesInputSchema,
  CustomFieldValuesSchema,
  externalIdFilter,
  ExternalIdSchema,
  IdSchema,
  listQueryProperties,
  MetadataSchema,
  Nullable,
  TimestampSchema,
  TimeZoneInputSchema,
  TimeZoneSchema,
} from '../../kernel/fields.js';
import { WorkingHoursSchema } from '../shared/index.js';

export const TEAM_ROLES = ['owner', 'admin', 'dispatcher', 'field'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

const name = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description: 'The member’s name.',
  example: 'Maria Lopez',
});
const email = Nullable(
  Type.String({
    format: 'email',
    maxLength: 254,
    description: 'E-mail address, unique case-insensitively among the account’s active members.',
    example: 'maria@cooperplumbing.example',
  }),
);
const phone = Nullable(
  Type.String({ maxLength: 50, description: 'Telephone number, free text.', example: '+1 555 0101' }),
);
const role = Type.Unsafe<TeamRole>({
  type: 'string',
  enum: [...TEAM_ROLES],
  description: `What the member does: ${TEAM_ROLES.join(', ')} (a label; members do not log in). Default field.`,
  example: 'field',
});
const color = Nullable(
  Type.String({
    pattern: '^#[0-9A-Fa-f]{6}$',
    description: 'A calendar colour, #RRGGBB (answered in upper case).',
    example: '#1E88E5',
  }),
);
const workingHours = Nullable({
  ...WorkingHoursSchema,
  description: `${WorkingHoursSchema.description} In the member’s timezone. null (the default): the account’s hours.`,
});
const bookable = Type.Boolean({
  description:
    'Whether GET /v1/availability offers the member when no team_member_id is named. Default true for role field, else false.',
  example: true,
});
const money = (description: string) =>
  Nullable(Type.Integer({ minimum: 0, maximum: 100_000_000, description, example: 4500 }));
const hourlyCost = money('What an hour of the member costs the business, in minor units (job costing). Default null.');
const hourlyRate = money('What an hour of the member is billed at, in minor units (job costing). Default null.');

const active = Type.Boolean({
  description: 'Whether the member can be newly assigned work. Deactivate rather than delete a member who did work.',
  example: true,
});

export const TeamMemberSchema = Type.Object(
  {
    id: IdSchema,
    object: Type.Literal('team_member', { description: 'Always "team_member".' }),
    name,
    email: Nullable(Type.String({ description: 'E-mail address.', example: 'maria@cooperplumbing.example' })),
    phone: Nullable(Type.String({ description: 'Telephone number.', example: '+1 555 0101' })),
    role,
    color: Nullable(Type.String({ description: 'Calendar colour, #RRGGBB.', example: '#1E88E5' })),
    timezone: { ...TimeZoneSchema, description: 'Where the member works: the account’s zone unless set.' },
    active,
    working_hours: workingHours,
    bookable,
    hourly_cost_amount: hourlyCost,
    hourly_rate_amount: hourlyRate,
    external_id: Nullable(ExternalIdSchema),
    metadata: MetadataSchema,
    custom_fields: CustomFieldValuesSchema,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { $id: 'TeamMember', description: 'A person of the business who is assigned work.' },
);

const writable = {
  email: Type.Optional(email),
  phone: Type.Optional(phone),
  role: Type.Optional(role),
  color: Type.Optional(color),
  timezone: Type.Optional({
    ...TimeZoneInputSchema,
    description: `Where the member works; stored as the account’s time zone when omitted at creation. ${TimeZoneInputSchema.description}`,
  }),
  active: Type.Optional(active),
  working_hours: Type.Optional(workingHours),
  bookable: Type.Optional(bookable),
  hourly_cost_amount: Type.Optional(hourlyCost),
  hourly_rate_amount: Type.Optional(hourlyRate),
  external_id: Type.Optional(Nullable(ExternalIdSchema)),
  metadata: Type.Optional(MetadataSchema),
  custom_fields: Type.Optional(CustomFieldValuesInputSchema),
};

export const CreateTeamMemberBody = Type.Object({ name, ...writable }, { additionalProperties: false });

export const UpdateTeamMemberBody = Type.Object(
  { name: Type.Optional(name), ...writable },
  { additionalProperties: false },
);

export const ListTeamMembersQuery = Type.Object(
  {
    ...listQueryProperties(['created_at', 'updated_at', 'name'] as const),
    active: Type.Optional(Type.Boolean({ description: 'true: only active members; false: only inactive ones.' })),
    role: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: `Comma-separated roles: ${TEAM_ROLES.join(', ')}.`,
        example: 'field,dispatcher',
        'x-comma-list': { type: 'string', enum: TEAM_ROLES },
      }),
    ),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Case-insensitive match anywhere in the name or e-mail.',
        example: 'maria',
      }),
    ),
    external_id: externalIdFilter,
  },
  { additionalProperties: false, ...customFieldFilterOptions },
);

export type TeamMember = Static<typeof TeamMemberSchema>;
export type CreateTeamMemberInput = Static<typeof CreateTeamMemberBody>;
export type UpdateTeamMemberInput = Static<typeof UpdateTeamMemberBody>;
export type ListTeamMembersInput = Static<typeof ListTeamMembersQuery>;
