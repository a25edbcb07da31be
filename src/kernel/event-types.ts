// The closed list of event types (docs/api-contract.md §9), and what each one's `data.object` is.
export const EVENT_TYPES = [
  'client.created',
  'client.updated',
  'client.deleted',
  'property.created',
  'property.updated',
  'property.deleted',
  'service_request.created',
  'service_request.updated',
  'service_request.converted',
  'quote.created',
  'quote.updated',
  'quote.sent',
  'quote.approved',
  'quote.declined',
  'quote.converted',
  'quote.deleted',
  // docs/api-contract.md §23: a quote's deposit_due_amount reached 0.
  'quote.deposit_paid',
  'job.created',
  'job.updated',
  'job.completed',
  'job.canceled',
  'job.deleted',
  'invoice.created',
  'invoice.updated',
  'invoice.sent',
  'invoice.paid',
  'invoice.voided',
  'invoice.deleted',
  // docs/api-contract.md §23: a payment reminder step sent (with its late fee, if any).
  'invoice.reminder_sent',
  'payment.created',
  'payment.refunded',
  'payment.applied',
  'payment.unapplied',
  'delivery.succeeded',
  'delivery.failed',
  // docs/api-contract.md §23: a reminder not delivered, its invoice paid, void or with reminders off.
  'delivery.canceled',
  'webhook_endpoint.disabled',
  'webhook_endpoint.test',
  'team_member.created',
  'team_member.updated',
  'team_member.deleted',
  // docs/api-contract.md §20: never with a secret.
  'api_key.created',
  'api_key.updated',
  'api_key.rolled',
  'api_key.revoked',
  // docs/api-contract.md §17: one event per change of a visit.
  'visit.created',
  'visit.scheduled',
  'visit.rescheduled',
  'visit.reassigned',
  'visit.en_route',
  'visit.started',
  'visit.completed',
  'visit.canceled',
  'visit.reopened',
  'visit.updated',
  'visit.deleted',
  // docs/api-contract.md §18: visit schedules.
  'visit_schedule.created',
  'visit_schedule.updated',
  'visit_schedule.paused',
  'visit_schedule.resumed',
  'visit_schedule.split',
  'visit_schedule.ended',
  // docs/api-contract.md §19.
  'product.created',
  'product.updated',
  'product.deleted',
  'tax_rate.created',
  'tax_rate.updated',
  'tax_rate.deleted',
  // docs/api-contract.md §23: recurring invoices.
  'recurring_invoice.created',
  'recurring_invoice.updated',
  'recurring_invoice.paused',
  'recurring_invoice.resumed',
  'recurring_invoice.ended',
  // docs/api-contract.md §28: availability exceptions (holds record no events; bookings are visit.created).
  'availability_exception.created',
  'availability_exception.updated',
  'availability_exception.deleted',
  // docs/api-contract.md §22.
  'credit_note.created',
  'credit_note.updated',
  'credit_note.issued',
  'credit_note.sent',
  'credit_note.applied',
  'credit_note.unapplied',
  'credit_note.refunded',
  'credit_note.voided',
  'credit_note.deleted',
  // docs/api-contract.md §29: time entries and the account's locked pay periods.
  'time_entry.created',
  'time_entry.updated',
  'time_entry.deleted',
  'time_entry.started',
  'time_entry.stopped',
  'time_entry.approved',
  'time_entry.unapproved',
  'time_lock.locked',
  'time_lock.unlocked',
  // Version 4 (docs/api-contract.md §25): an app in its publisher's account; its installs in the installing one.
  'app.created',
  'app.updated',
  'app.deleted',
  'app.installed',
  'app.reauthorized',
  'app.uninstalled',
  // docs/api-contract.md §27: definitions; a value's change is its object's *.updated.
  'custom_field.created',
  'custom_field.updated',
  'custom_field.deleted',
  // docs/api-contract.md §27: a tag renamed (or merged into another) or deleted everywhere; no object's *.updated.
  'tag.renamed',
  'tag.deleted',
  // docs/api-contract.md §26: a CSV import made, and how it ended.
  'import.created',
  'import.completed',
  'import.failed',
  'import.canceled',
  // docs/api-contract.md §30.
  'attachment.created',
  'attachment.updated',
  'attachment.deleted',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
export type EventResource = EventType extends `${infer Resource}.${string}` ? Resource : never;

/** The schema ($id) of `data.object` for each kind of resource an event is about. */
export const EVENT_OBJECT_SCHEMAS: Record<EventResource, string> = {
  client: 'Client',
  property: 'Property',
  service_request: 'ServiceRequest',
  quote: 'Quote',
  job: 'Job',
  invoice: 'Invoice',
  payment: 'Payment',
  delivery: 'Delivery',
  webhook_endpoint: 'WebhookEndpoint',
  team_member: 'TeamMember',
  api_key: 'ApiKey',
  visit: 'Visit',
  visit_schedule: 'VisitSchedule',
  product: 'Product',
  tax_rate: 'TaxRate',
  recurring_invoice: 'RecurringInvoice',
  availability_exception: 'AvailabilityException',
  credit_note: 'CreditNote',
  time_entry: 'TimeEntry',
  time_lock: 'TimeLock',
  app: 'App',
  custom_field: 'CustomField',
  tag: 'Tag',
  import: 'Import',
  attachment: 'Attachment',
};

/** Types whose `data.object` is not their resource's schema: an app's install events carry the install. */
const TYPE_OBJECT_SCHEMAS: Partial<Record<EventType, string>> = {
  'app.installed': 'AppInstall',
  'app.reauthorized': 'AppInstall',
  'app.uninstalled': 'AppInstall',
};

/** The schema ($id) of `data.object` in an event of this type. */
export function eventObjectSchema(type: EventType): string {
  return TYPE_OBJECT_SCHEMAS[type] ?? EVENT_OBJECT_SCHEMAS[type.slice(0, type.indexOf('.')) as EventResource];
}

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/**
 * Whether a pattern (`*`, `invoice.*` or an exact type) is valid, and whether it matches a type. Used by
 * the `type` filter of the event list and by the endpoints' `enabled_events`.
 */
export function isEventPattern(pattern: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return Object.keys(EVENT_OBJECT_SCHEMAS).includes(pattern.slice(0, -2));
  return isEventType(pattern);
}

export function matchesEventPattern(pattern: string, type: string): boolean {
  return pattern === '*' || pattern === type || (pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1)));
}
